// A line's files: read from a multipart message (Chatwoot's clients post `attachments[]` with the line's
// fields as form fields), kept through the storage interface (bucket `support`), recorded beside the line.
import type { FunctionContext } from "../../shared/context.ts";
import type { Db } from "../../shared/db.ts";
import { readUpTo } from "../../shared/http.ts";
import { storableText } from "../../shared/input-text.ts";
import { SupportError, unprocessable } from "./envelope.ts";
import { FILES_BUCKET, insertAttachment } from "./store/files.ts";

/** A message body: its fields, and its files when it came as a form. */
export interface MessageInput {
  fields: Record<string, unknown>;
  files: File[];
}

export const FILE_LIMITS = { files: 5, bytes: 15 * 1024 * 1024, body: 40 * 1024 * 1024 } as const;

export interface StoredFile {
  fileType: "image" | "audio" | "file";
  extension: string | null;
  contentType: string;
  storageKey: string;
  size: number;
  duration: number | null;
}

/**
 * The fields of a form (multipart or urlencoded; `message[content]` is read as `content`) with its files
 * (`attachments[]` or `attachments`), or undefined when the body is not a form (the caller reads JSON).
 */
export async function readMessageForm(request: Request): Promise<MessageInput | undefined> {
  const type = request.headers.get("content-type") ?? "";
  if (!/^(multipart\/form-data|application\/x-www-form-urlencoded)/i.test(type)) return undefined;
  const bytes = await readUpTo(request.body, FILE_LIMITS.body);
  if (!bytes) throw new SupportError(413, `A message may carry at most ${FILE_LIMITS.body / 1024 / 1024} MB.`);
  let form: FormData;
  try {
    form = await new Response(bytes as BodyInit, { headers: { "content-type": type } }).formData();
  } catch {
    throw new SupportError(400, "The form body could not be read.");
  }
  const fields: Record<string, unknown> = {};
  const files: File[] = [];
  for (const [rawName, value] of form.entries()) {
    const name = rawName.replace(/^message\[(.+)\]$/, "$1").replace(/\[\]$/, "");
    if (typeof value !== "string") {
      if (name === "attachments") files.push(value);
      continue;
    }
    if (!storableText(value)) throw new SupportError(400, `The field ${name} is not acceptable.`);
    fields[name] = name === "content_attributes" ? parseJsonField(value) : value === "true" ? true : value === "false" ? false : value;
  }
  if (files.length > FILE_LIMITS.files) throw unprocessable(`At most ${FILE_LIMITS.files} files a message.`);
  for (const file of files) {
    if (file.size > FILE_LIMITS.bytes) throw unprocessable(`A file may be at most ${FILE_LIMITS.bytes / 1024 / 1024} MB.`);
  }
  return { fields, files };
}

function parseJsonField(value: string): unknown {
  try {
    return JSON.parse(value);
  } catch {
    throw new SupportError(400, "content_attributes is not valid JSON.");
  }
}

function fileTypeOf(contentType: string): StoredFile["fileType"] {
  if (/^image\/(png|jpeg|gif|webp)$/.test(contentType)) return "image";
  if (contentType.startsWith("audio/")) return "audio";
  return "file";
}

/** Keeps the files' bytes in storage (before the line's transaction; a failed line leaves only unread bytes). */
export async function storeFiles(ctx: FunctionContext, conversationId: number, files: File[], seconds?: number): Promise<StoredFile[]> {
  const stored: StoredFile[] = [];
  for (const file of files) {
    const contentType = /^[\w.+-]+\/[\w.+-]+$/.test(file.type) ? file.type.toLowerCase() : "application/octet-stream";
    const extension = file.name.match(/\.([A-Za-z0-9]{1,16})$/)?.[1].toLowerCase() ?? null;
    const storageKey = `conversations/${conversationId}/${crypto.randomUUID()}${extension ? `.${extension}` : ""}`;
    await ctx.storage.put(FILES_BUCKET, storageKey, new Uint8Array(await file.arrayBuffer()), contentType);
    const fileType = fileTypeOf(contentType);
    stored.push({
      fileType,
      extension,
      contentType,
      storageKey,
      size: file.size,
      duration: fileType === "audio" && seconds !== undefined ? seconds : null,
    });
  }
  return stored;
}

/** Records the stored files beside their line (inside the line's transaction). */
export async function recordFiles(db: Db, messageId: number, files: StoredFile[]): Promise<void> {
  for (const file of files) await insertAttachment(db, { messageId, ...file });
}

/** A voice note's length in seconds from a form's `seconds` (or `duration`) field, when one was given. */
export function voiceSeconds(fields: Record<string, unknown>): number | undefined {
  const value = Number(fields.seconds ?? fields.duration);
  return Number.isFinite(value) && value > 0 && value < 24 * 3600 ? Math.round(value * 10) / 10 : undefined;
}
