// Signed one-hour addresses of the lines' files: `<public url>/api/desk/files/<attachment id>?expires&signature`,
// signed with the site's `support_files` secret over the function path (shared/storage.ts signAddress).
import type { FunctionContext } from "../../shared/context.ts";
import { signAddress, verifyAddress } from "../../shared/storage.ts";
import { LIMITS } from "./domain/limits.ts";

// deno-lint-ignore no-explicit-any
type Json = Record<string, any>;

const SECRET = "support_files";

export const filePath = (id: number | string) => `/files/${id}`;

/** What signing an address needs: the files secret, the time, the site's public address. */
type Signer = Pick<FunctionContext, "secrets" | "clock" | "config">;

/** Fills data_url (and thumb_url for a picture) of a message's attachments. */
export async function signMessageFiles<T extends Json | null | undefined>(ctx: Signer, message: T): Promise<T> {
  if (!message?.attachments?.length) return message;
  const secret = await ctx.secrets.get(SECRET);
  const now = ctx.clock.now();
  for (const file of message.attachments as Json[]) {
    const path = filePath(file.id);
    const url = `${ctx.config.publicUrl}/api/desk${path}?${await signAddress(secret, path, now, LIMITS.fileAddressSeconds)}`;
    file.data_url = url;
    file.thumb_url = file.file_type === "image" ? url : "";
  }
  return message;
}

/** The same for every message a conversation carries. */
export async function signConversationFiles<T extends Json>(ctx: Signer, conversation: T): Promise<T> {
  for (const message of conversation.messages ?? []) await signMessageFiles(ctx, message);
  await signMessageFiles(ctx, conversation.last_non_activity_message);
  return conversation;
}

/**
 * A webhook body with every line's files given addresses signed for an hour from now (the database
 * writes the payload without them, as it cannot sign): the message of message_created, the messages and
 * the last line of a conversation's events. A body with no file is answered unchanged, byte for byte.
 */
export async function signPayloadFiles(ctx: Signer, body: string): Promise<string> {
  if (!/"attachments":\s*\[\s*\{/.test(body)) return body;
  const payload = JSON.parse(body);
  const visit = async (value: unknown): Promise<void> => {
    if (Array.isArray(value)) {
      for (const item of value) await visit(item);
    } else if (value && typeof value === "object") {
      const object = value as Json;
      if (Array.isArray(object.attachments) && object.attachments.length) await signMessageFiles(ctx, object);
      for (const [key, child] of Object.entries(object)) if (key !== "attachments") await visit(child);
    }
  };
  await visit(payload);
  return JSON.stringify(payload);
}

export async function fileAddressValid(ctx: FunctionContext, id: string, params: URLSearchParams): Promise<boolean> {
  return await verifyAddress(await ctx.secrets.get(SECRET), filePath(id), params, ctx.clock.now());
}
