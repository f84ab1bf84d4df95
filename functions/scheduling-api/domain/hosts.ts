// Hosts, their schedules and away periods, as the site's configuration declares them (site.yaml
// `sessions.hosts`). Read from the site settings row the admission already loads, so they cost no
// extra round trip. Ids are stable FNV-1a numbers of names, like event type ids.
import { isZone, minutesOf, wallToUtc, WEEKDAYS } from "./zones.ts";

/** FNV-1a over the UTF-8 bytes, folded to a positive 31-bit integer (never 0). */
export function fnv31(text: string): number {
  let hash = 0x811c9dc5;
  for (const byte of new TextEncoder().encode(text)) {
    hash ^= byte;
    hash = Math.imul(hash, 0x01000193) >>> 0;
  }
  return (hash & 0x7fffffff) || 1;
}

export interface Schedule {
  id: number;
  ownerEmail: string;
  name: string;
  timeZone: string;
  availability: { days: string[]; startTime: string; endTime: string }[];
  isDefault: boolean;
  overrides: { date: string; startTime: string; endTime: string }[];
  metadata: {
    beforeBufferMinutes: number;
    afterBufferMinutes: number;
    noticeHours: number;
    maxPerDay: number | null;
    maxPerWeek: number | null;
  };
}

export interface AwayPeriod {
  id: number;
  hostEmail: string;
  start: string;
  end: string;
  notes: string | null;
  reason: { emoji: string; reason: string };
  /** the covering host's address, or null when nobody covers */
  toEmail: string | null;
}

export interface Host {
  id: number;
  username: string;
  name: string;
  email: string;
  timeZone: string;
  timeFormat: 12 | 24;
  weekStart: string;
  schedules: Schedule[];
  away: AwayPeriod[];
}

export interface SessionsConfig {
  hosts: Host[];
  weekStart: string;
  /** the shared secret an external scheduler signs its booking webhooks with (intake route) */
  intakeSecret: string | null;
  /** checkout may carry a guest (no profile) to a paid session */
  guestCheckout: boolean;
  /**
   * Credentials for external schedulers (`sessions.schedulers`: [{ url, key }]): a type whose scheduler
   * address starts with `url` is forwarded with `Authorization: Bearer <key>`. Kept in the site's
   * configuration, which readers never see, because session records are published content.
   */
  schedulers: { url: string; key: string }[];
}

export class SessionsConfigError extends Error {}

type Raw = Record<string, unknown>;
const str = (v: unknown): string | undefined => (typeof v === "string" && v.trim() ? v.trim() : undefined);
const num = (v: unknown): number | undefined => (typeof v === "number" && Number.isFinite(v) ? v : undefined);

function checkTime(t: unknown, where: string): string {
  if (typeof t !== "string") throw new SessionsConfigError(`${where} must be HH:MM`);
  try {
    minutesOf(t);
  } catch {
    throw new SessionsConfigError(`${where} must be HH:MM`);
  }
  return t.length === 4 ? `0${t}` : t;
}

function isoDay(value: unknown, where: string): string {
  const text = value instanceof Date ? value.toISOString().slice(0, 10) : String(value ?? "");
  if (!/^\d{4}-\d{2}-\d{2}$/.test(text)) throw new SessionsConfigError(`${where} must be a date YYYY-MM-DD`);
  return text;
}

function instant(value: unknown, where: string, zone: string, endOfDay: boolean): string {
  if (value instanceof Date) return value.toISOString();
  const text = String(value ?? "");
  if (/^\d{4}-\d{2}-\d{2}$/.test(text)) {
    // a date alone: the whole day in the host's zone (an end date is inclusive)
    return new Date(wallToUtc(text, endOfDay ? 1440 : 0, zone)).toISOString();
  }
  const ms = Date.parse(text);
  if (Number.isNaN(ms)) throw new SessionsConfigError(`${where} must be a date or a date and time`);
  return new Date(ms).toISOString();
}

/** Parses `sessions` of the site configuration; a bad declaration is a SessionsConfigError. */
export function parseSessionsConfig(config: Raw | undefined): SessionsConfig {
  const sessions = (config?.sessions ?? {}) as Raw;
  const weekStart = str(sessions.weekStart) ?? "Monday";
  if (!(WEEKDAYS as readonly string[]).includes(weekStart)) {
    throw new SessionsConfigError("sessions.weekStart must be a weekday name");
  }
  const list = Array.isArray(sessions.hosts) ? sessions.hosts as Raw[] : [];
  const hosts: Host[] = [];
  const pendingAway: { host: Host; raw: Raw; where: string }[] = [];
  for (const [i, raw] of list.entries()) {
    const where = `sessions.hosts[${i}]`;
    const email = str(raw.email)?.toLowerCase();
    if (!email) throw new SessionsConfigError(`${where}.email is required`);
    const username = str(raw.username) ?? email.split("@")[0];
    const timeZone = str(raw.timeZone) ?? "UTC";
    if (!isZone(timeZone)) throw new SessionsConfigError(`${where}.timeZone is not an IANA zone`);
    const host: Host = {
      id: fnv31(`user:${username}`),
      username,
      name: str(raw.name) ?? username,
      email,
      timeZone,
      timeFormat: raw.timeFormat === 12 ? 12 : 24,
      weekStart: str(raw.weekStart) ?? weekStart,
      schedules: [],
      away: [],
    };
    const schedules = Array.isArray(raw.schedules) ? raw.schedules as Raw[] : [];
    for (const [j, s] of schedules.entries()) {
      const at = `${where}.schedules[${j}]`;
      const name = str(s.name) ?? `Schedule ${j + 1}`;
      const zone = str(s.timeZone) ?? timeZone;
      if (!isZone(zone)) throw new SessionsConfigError(`${at}.timeZone is not an IANA zone`);
      const availability = (Array.isArray(s.availability) ? s.availability as Raw[] : []).map((a, k) => {
        const days = (Array.isArray(a.days) ? a.days : []).map(String);
        for (const d of days) {
          if (!(WEEKDAYS as readonly string[]).includes(d)) {
            throw new SessionsConfigError(`${at}.availability[${k}].days: ${d} is not a weekday name`);
          }
        }
        return {
          days,
          startTime: checkTime(a.startTime, `${at}.availability[${k}].startTime`),
          endTime: checkTime(a.endTime, `${at}.availability[${k}].endTime`),
        };
      });
      const overrides = (Array.isArray(s.overrides) ? s.overrides as Raw[] : []).map((o, k) => ({
        date: isoDay(o.date, `${at}.overrides[${k}].date`),
        startTime: checkTime(o.startTime ?? "00:00", `${at}.overrides[${k}].startTime`),
        endTime: checkTime(o.endTime ?? "00:00", `${at}.overrides[${k}].endTime`),
      }));
      const meta = (s.metadata ?? {}) as Raw;
      host.schedules.push({
        id: fnv31(`schedule:${username}/${name}`),
        ownerEmail: email,
        name,
        timeZone: zone,
        availability,
        isDefault: s.default === true || s.isDefault === true,
        overrides,
        metadata: {
          beforeBufferMinutes: num(meta.beforeBufferMinutes) ?? 0,
          afterBufferMinutes: num(meta.afterBufferMinutes) ?? 0,
          noticeHours: num(meta.noticeHours) ?? 0,
          maxPerDay: num(meta.maxPerDay) ?? null,
          maxPerWeek: num(meta.maxPerWeek) ?? null,
        },
      });
    }
    // exactly one default: the one marked, else the first
    const marked = host.schedules.filter((s) => s.isDefault);
    if (marked.length > 1) throw new SessionsConfigError(`${where}: only one schedule may be the default`);
    if (!marked.length && host.schedules.length) host.schedules[0].isDefault = true;
    for (const [j, a] of (Array.isArray(raw.away) ? raw.away as Raw[] : []).entries()) {
      pendingAway.push({ host, raw: a, where: `${where}.away[${j}]` });
    }
    hosts.push(host);
  }
  for (const { host, raw, where } of pendingAway) {
    const start = instant(raw.start, `${where}.start`, host.timeZone, false);
    const end = instant(raw.end ?? raw.start, `${where}.end`, host.timeZone, true);
    const to = str(raw.toUser);
    const cover = to ? hosts.find((h) => h.username === to || h.email === to.toLowerCase()) : undefined;
    if (to && !cover) throw new SessionsConfigError(`${where}.toUser: no host ${to}`);
    host.away.push({
      id: fnv31(`away:${host.username}/${start}`),
      hostEmail: host.email,
      start,
      end,
      notes: str(raw.notes) ?? null,
      reason: { emoji: str(raw.emoji) ?? "🏝️", reason: str(raw.reason) ?? "unspecified" },
      toEmail: cover?.email ?? null,
    });
  }
  const intake = (sessions.intake ?? {}) as Raw;
  return {
    hosts,
    weekStart,
    intakeSecret: str(intake.secret) ?? null,
    guestCheckout: sessions.guestCheckout !== false,
    schedulers: (Array.isArray(sessions.schedulers) ? sessions.schedulers as Raw[] : []).map((raw, i) => {
      const url = str(raw.url), key = str(raw.key);
      if (!url || !/^https?:\/\//.test(url)) {
        throw new SessionsConfigError(`sessions.schedulers[${i}].url must be an http(s) address`);
      }
      if (!key) throw new SessionsConfigError(`sessions.schedulers[${i}].key is required`);
      return { url, key };
    }),
  };
}

/** A host named by username, address or display name (how session records name their hosts). */
export function findHost(hosts: Host[], name: string): Host | undefined {
  const n = name.trim().toLowerCase();
  return hosts.find((h) => h.username.toLowerCase() === n || h.email === n || h.name.toLowerCase() === n);
}

export function defaultSchedule(host: Host): Schedule | undefined {
  return host.schedules.find((s) => s.isDefault);
}

export function weekdayNumber(name: string): number {
  return (WEEKDAYS as readonly string[]).indexOf(name) + 1;
}
