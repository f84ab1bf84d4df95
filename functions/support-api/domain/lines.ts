// What a line may be, before it is stored.
import { storableText } from "../../../shared/input-text.ts";
import { LIMITS } from "./limits.ts";

/** Why a contact's line cannot be kept, or undefined (a line of files alone may have no text). */
export function contactLineProblem(content: unknown, hasFiles = false): string | undefined {
  if (hasFiles && (content === undefined || content === null || content === "")) return undefined;
  if (typeof content !== "string" || content.trim() === "") return "content must be a non-empty string.";
  if (!storableText(content)) return "content may not contain the NUL character or a lone surrogate.";
  if ([...content].length > LIMITS.lineLength) {
    return `content is longer than ${LIMITS.lineLength} characters.`;
  }
  return undefined;
}

/** Why an agent's line cannot be kept (the desk's answer: outgoing, never a private note), or undefined. */
export function agentLineProblem(body: Record<string, unknown>, hasFiles = false): string | undefined {
  if (body.private === true || body.private === "true") return "Private notes are not kept here.";
  const type = body.message_type ?? "outgoing";
  if (type !== "outgoing" && type !== 1 && type !== "1") return "message_type must be outgoing.";
  const content = body.content;
  if (hasFiles && (content === undefined || content === null || content === "")) return undefined;
  if (typeof content !== "string" || content.trim() === "") return "content must be a non-empty string.";
  if (!storableText(content)) return "content may not contain the NUL character or a lone surrogate.";
  if (content.length > LIMITS.agentLineLength) return `content is longer than ${LIMITS.agentLineLength} characters.`;
  return undefined;
}

/** An echo_id the widget sends to find its own line again (any short text or number). */
export function echoId(value: unknown): string | null | undefined {
  if (value === undefined || value === null) return null;
  if (typeof value === "number" && Number.isFinite(value)) return String(value);
  if (typeof value === "string" && value.length <= 255 && storableText(value)) return value;
  return undefined;
}
