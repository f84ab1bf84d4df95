// The images door's cache list (migration 20261124000202): which transforms of a file are stored.
import type { Db } from "../../../shared/db.ts";

/** Records a cached transform of a file, by the file's content hash. */
export async function rememberImageVariant(db: Db, contentHash: string, variant: string): Promise<void> {
  await db`insert into public.content_image_variants (content_hash, variant) values (${contentHash}, ${variant})
           on conflict do nothing`;
}

/** Cached transforms of files no asset has any more (deleted, or replaced by another file), oldest first. */
export function orphanedImageVariants(
  db: Db,
  limit: number,
): Promise<{ contentHash: string; variant: string }[]> {
  return db<{ contentHash: string; variant: string }[]>`
    select v.content_hash as "contentHash", v.variant from public.content_image_variants v
    where not exists (select 1 from public.content_assets a where a.content_hash = v.content_hash)
    order by v.created_at limit ${limit}`;
}

export async function forgetImageVariant(db: Db, contentHash: string, variant: string): Promise<void> {
  await db`delete from public.content_image_variants where content_hash = ${contentHash} and variant = ${variant}`;
}
