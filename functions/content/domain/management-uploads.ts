// Uploads (temporary holders of file bytes, one day) and the daily sweep that removes expired uploads
// and assets never processed.
import type { Sql } from "../../../shared/db.ts";
import { randomBase62 } from "../../../shared/ids.ts";
import type { Storage } from "../../../shared/storage.ts";
import { nextDailyAt } from "../../../shared/daily.ts";
import { MEDIA_BUCKET } from "../../../shared/site/import.ts";
import { ContentError } from "../envelope.ts";
import {
  deleteUpload,
  insertUpload,
  liveUpload,
  type ManagementActor,
  sweepUploads,
  type UploadRow,
} from "../store/management.ts";
import { spaceLink } from "./shape.ts";
import { UPLOAD_LIFETIME_MS } from "./management-rules.ts";
import { apiAssetPath, UPLOAD_BUCKET } from "./management-assets.ts";

export function shapeUpload(row: UploadRow, space: string) {
  return {
    sys: {
      type: "Upload",
      id: row.id,
      space: spaceLink(space),
      createdAt: row.createdAt.toISOString(),
      expiresAt: row.expiresAt.toISOString(),
      ...(row.createdBy ? { createdBy: { sys: { type: "Link", linkType: "User", id: row.createdBy } } } : {}),
    },
  };
}

/**
 * Keeps the bytes, then the row that names them; a failed row write takes the bytes back out, so no
 * upload row ever points at nothing.
 */
export async function createUpload(
  sql: Sql,
  storage: Storage,
  actor: ManagementActor,
  input: { bytes: Uint8Array; contentType: string; now: Date },
): Promise<UploadRow> {
  if (input.bytes.byteLength === 0) {
    throw new ContentError("BadQuery", "An upload needs the file's bytes as its body.");
  }
  const id = randomBase62(22);
  await storage.put(UPLOAD_BUCKET, id, input.bytes, input.contentType);
  try {
    return await insertUpload(sql, actor, {
      id,
      size: input.bytes.byteLength,
      contentType: input.contentType,
      now: input.now,
      expiresAt: new Date(input.now.getTime() + UPLOAD_LIFETIME_MS),
    });
  } catch (error) {
    await storage.delete(UPLOAD_BUCKET, id).catch(() => {});
    throw error;
  }
}

export async function readUpload(sql: Sql, id: string, now: Date): Promise<UploadRow> {
  const row = await liveUpload(sql, id, now);
  if (!row) throw new ContentError("NotFound", undefined, { type: "Upload", id });
  return row;
}

export async function removeUpload(sql: Sql, storage: Storage, id: string, now: Date): Promise<void> {
  await readUpload(sql, id, now);
  await deleteUpload(sql, id);
  await storage.delete(UPLOAD_BUCKET, id);
}

/** The daily sweep runs at 04:50 UTC (the spec's hour; pg_cron schedules it in UTC where deployed). */
export const SWEEP_AT_UTC = { hour: 4, minute: 50 };

/** When the next daily sweep is due after `now`. */
export const nextSweepAt = (now: Date): Date => nextDailyAt(now, SWEEP_AT_UTC);

/**
 * The daily sweep: uploads past their day and assets created but never processed within a day go.
 * `olderThanMs` (a manual run) takes everything made longer ago than that instead.
 */
export async function sweep(
  sql: Sql,
  storage: Storage,
  input: { now: Date; olderThanMs?: number },
): Promise<{ uploads: number; assets: number }> {
  const cutoff = new Date(input.now.getTime() - (input.olderThanMs ?? UPLOAD_LIFETIME_MS));
  const gone = await sql.begin((tx) =>
    sweepUploads(tx, {
      now: input.now,
      uploadCutoff: input.olderThanMs === undefined ? new Date(0) : cutoff,
      assetCutoff: cutoff,
    })
  );
  for (const id of gone.uploads) await storage.delete(UPLOAD_BUCKET, id);
  // a pending asset has no bytes under its path unless a processing run failed half way
  for (const asset of gone.assets) await storage.delete(MEDIA_BUCKET, apiAssetPath(asset.id, asset.fileName));
  return { uploads: gone.uploads.length, assets: gone.assets.length };
}
