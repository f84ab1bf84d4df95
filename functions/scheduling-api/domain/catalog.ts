// The site's scheduling catalogue for one request: the declared hosts (site configuration) and the
// event types (session records), built from rows the caller already has.
import { defaultLocale, type SiteSettings } from "../../../shared/site.ts";
import { type EventType, eventTypeFromEntry, type SessionEntry } from "./event-types.ts";
import { type Host, parseSessionsConfig, type SessionsConfig } from "./hosts.ts";

export interface Catalog {
  sessions: SessionsConfig;
  hosts: Host[];
  types: EventType[];
}

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
