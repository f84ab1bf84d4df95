// SQL of the lines' files (the bytes are in the storage interface, bucket `support`).
import type { Db } from "../../../shared/db.ts";

export const FILES_BUCKET = "support";

export async function attachmentFile(
  db: Db,
  id: number,
): Promise<{ storage_key: string; content_type: string; extension: string | null } | undefined> {
  const [row] = await db<{ storage_key: string; content_type: string; extension: string | null }[]>`
    select storage_key, content_type, extension from public.support_attachments where id = ${id}`;
  return row;
}

export async function insertAttachment(
  db: Db,
  input: {
    messageId: number;
    fileType: "image" | "audio" | "file";
    extension: string | null;
    contentType: string;
    storageKey: string;
    size: number;
    duration?: number | null;
  },
): Promise<void> {
  await db`insert into public.support_attachments (message_id, file_type, extension, content_type, storage_key, file_size, duration)
           values (${input.messageId}, ${input.fileType}, ${input.extension}, ${input.contentType}, ${input.storageKey},
                   ${input.size}, ${input.duration ?? null})`;
}
