// Content types change only when the site is imported, which bumps site_settings.updated_at: cache them
// per process under that stamp so a delivery read costs no extra round trip.
import type { Db } from "../../shared/db.ts";
import type { SiteSettings } from "../../shared/site.ts";
import type { ContentModel } from "./domain/content-types.ts";
import { loadModels } from "./store/entries.ts";

let cached: { stamp: string; models: Promise<Map<string, ContentModel>> } | undefined;

export function modelsFor(db: Db, site: SiteSettings): Promise<Map<string, ContentModel>> {
  const stamp = site.updated_at ?? "";
  if (!cached || cached.stamp !== stamp || !stamp) {
    const models = loadModels(db).then((list) => new Map(list.map((m) => [m.id, m])));
    models.catch(() => (cached = undefined));
    cached = { stamp, models };
  }
  return cached.models;
}
