// Resolves includes level by level: one batched read of entries and one of assets per level, never a
// query per link. The page's own items are never repeated in includes.
import type { Db } from "../../../shared/db.ts";
import { assetsByIds, entriesByIds, type EntryRow, type Stage } from "../store/entries.ts";
import { collectLinks, type LinkRef } from "./links.ts";
import { shapeAsset, shapeEntry, type ShapeContext } from "./shape.ts";

export interface Resolved {
  Entry: unknown[];
  Asset: unknown[];
  errors: unknown[];
}

export async function resolveIncludes(
  db: Db,
  stage: Stage,
  items: { row: EntryRow; shaped: Record<string, unknown> }[],
  depth: number,
  ctx: ShapeContext,
): Promise<Resolved> {
  const resolved: Resolved = { Entry: [], Asset: [], errors: [] };
  if (depth <= 0) return resolved;
  const known = new Set(items.map((i) => `Entry!${i.row.id}`));
  const missing = new Set<string>();
  let frontier = items.map((i) => i.shaped.fields);
  for (let level = 1; level <= depth && frontier.length; level++) {
    const wanted = new Map<string, LinkRef>();
    for (const link of collectLinks(frontier)) {
      const key = `${link.linkType}!${link.id}`;
      if (!known.has(key) && !missing.has(key)) wanted.set(key, link);
    }
    if (wanted.size === 0) break;
    const entryIds = [...wanted.values()].filter((l) => l.linkType === "Entry").map((l) => l.id);
    const assetIds = [...wanted.values()].filter((l) => l.linkType === "Asset").map((l) => l.id);
    const [entryRows, assetRows] = await Promise.all([entriesByIds(db, stage, entryIds), assetsByIds(db, assetIds)]);
    frontier = [];
    for (const row of entryRows) {
      const shaped = shapeEntry(row, { ...ctx, select: undefined });
      known.add(`Entry!${row.id}`);
      resolved.Entry.push(shaped);
      frontier.push(shaped.fields);
    }
    for (const row of assetRows) {
      known.add(`Asset!${row.id}`);
      resolved.Asset.push(shapeAsset(row, { ...ctx, select: undefined }));
    }
    for (const [key, link] of wanted) {
      if (known.has(key)) continue;
      missing.add(key);
      resolved.errors.push({
        sys: { id: "notResolvable", type: "error" },
        details: { type: "Link", linkType: link.linkType, id: link.id },
      });
    }
  }
  return resolved;
}
