// The site's scheduling catalogue: the declared hosts (site configuration) and the event types
// (published session records). Both change only with site_settings.updated_at (an import, a settings
// change, or a session record's write, which migration 075 makes move it), so the catalogue is built once
// per process and stamp, like the content function's models, and a request costs no round trip for it.
import type { FunctionContext } from "../../../shared/context.ts";
import { defaultLocale, type SiteSettings } from "../../../shared/site.ts";
import { SchedulingError } from "../envelope.ts";
import { loadSessionEntries } from "../store/event-types.ts";
import { type EventType, eventTypeFromEntry, type SessionEntry } from "./event-types.ts";
import { type Host, parseSessionsConfig, SessionsConfigError, type SessionsConfig } from "./hosts.ts";

export interface Catalog {
  sessions: SessionsConfig;
  hosts: Host[];
  types: EventType[];
}

let cached: { stamp: string; catalog: Promise<Catalog> } | undefined;

/** The catalogue of the site as `site` was read, kept per process and settings stamp. */
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

/** The catalogue from rows the caller already has. */
export function buildCatalog(site: SiteSettings, entries: SessionEntry[]): Catalog {
  const sessions = parseSessionsConfig(site.config);
  const locale = defaultLocale(site).code;
  const types = entries.map((e) => eventTypeFromEntry(e, sessions.hosts, locale));
  return { sessions, hosts: sessions.hosts, types };
}

/** A type addressed by its integer id or its slug. */
export function findType(catalog: Catalog, ref: string | number): EventType | undefined {
  const s = String(ref).trim();
  if (/^\d+$/.test(s)) {
    const id = Number(s);
    const byId = catalog.types.find((t) => t.id === id);
    if (byId) return byId;
  }
  return catalog.types.find((t) => t.slug === s);
}

export function hostByEmail(catalog: Catalog, email: string): Host | undefined {
  return catalog.hosts.find((h) => h.email === email.toLowerCase());
}
