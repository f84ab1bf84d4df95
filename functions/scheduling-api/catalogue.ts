// The site's scheduling catalogue, kept per process. Hosts come from the site settings and event types
// from the published session records; both change only with site_settings.updated_at (an import, a
// settings change, or a session record's write, which migration 075 makes move it). So the catalogue is
// built once per process and stamp, like the content function's models, and a request costs no round
// trip for it.
import type { FunctionContext } from "../../shared/context.ts";
import type { SiteSettings } from "../../shared/site.ts";
import { buildCatalog, type Catalog } from "./domain/catalog.ts";
import { SessionsConfigError } from "./domain/hosts.ts";
import { SchedulingError } from "./envelope.ts";
import { loadSessionEntries } from "./store.ts";

let cached: { stamp: string; catalog: Promise<Catalog> } | undefined;

export function catalogFor(ctx: Pick<FunctionContext, "sql">, site: SiteSettings): Promise<Catalog> {
  const stamp = String(site.updated_at ?? "");
  if (cached && cached.stamp === stamp && stamp) return cached.catalog;
  const catalog = loadSessionEntries(ctx.sql).then((entries) => {
    try {
      return buildCatalog(site, entries);
    } catch (error) {
      if (error instanceof SessionsConfigError) {
        throw new SchedulingError(
          "SERVICE_UNAVAILABLE",
          `The site's sessions configuration is invalid: ${error.message}`,
        );
      }
      throw error;
    }
  });
  // a failed load is not kept: the next request tries again
  catalog.catch(() => {
    if (cached?.catalog === catalog) cached = undefined;
  });
  cached = { stamp, catalog };
  return catalog;
}
