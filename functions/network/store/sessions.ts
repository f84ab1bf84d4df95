// App passwords and protocol sessions: only hashes are kept; a token counts while its hash is here.
import type { MemberRow } from "./people.ts";
import type { Db } from "../../../shared/db.ts";
import { countHits, peekHits } from "../../../shared/gate.ts";
import type { SiteSettings } from "../../../shared/site.ts";

export interface AppPasswordRow {
  id: string;
  name: string;
  privileged: boolean;
  created_at: Date;
}

export async function listAppPasswords(db: Db, personId: string): Promise<AppPasswordRow[]> {
  return await db<AppPasswordRow[]>`
    select id, name, privileged, created_at from public.network_app_passwords
    where person_id = ${personId} order by created_at desc, name`;
}

/** undefined when the member already has one by that name */
export async function insertAppPassword(
  db: Db,
  input: { personId: string; name: string; hash: string; privileged: boolean; now: Date },
): Promise<AppPasswordRow | undefined> {
  const [row] = await db<AppPasswordRow[]>`
    insert into public.network_app_passwords (person_id, name, hash, privileged, created_at)
    values (${input.personId}, ${input.name}, ${input.hash}, ${input.privileged}, ${input.now})
    on conflict (person_id, name) do nothing
    returning id, name, privileged, created_at`;
  return row;
}

/** Revokes by deleting: the sessions made with it go too (on delete cascade). */
export async function deleteAppPassword(db: Db, personId: string, name: string): Promise<boolean> {
  const rows = await db`
    delete from public.network_app_passwords where person_id = ${personId} and name = ${name} returning id`;
  return rows.length > 0;
}

export async function appPasswordByHash(
  db: Db,
  personId: string,
  hash: string,
): Promise<{ id: string; privileged: boolean } | undefined> {
  const [row] = await db<{ id: string; privileged: boolean }[]>`
    select id, privileged from public.network_app_passwords where person_id = ${personId} and hash = ${hash}`;
  return row;
}

export interface SessionTokens {
  accessHash: string;
  refreshHash: string;
  accessExpiresAt: Date;
  refreshExpiresAt: Date;
}

export async function insertSession(
  db: Db,
  input: { personId: string; appPasswordId: string; now: Date } & SessionTokens,
): Promise<void> {
  await db`
    insert into public.network_sessions
      (person_id, app_password_id, access_hash, refresh_hash, access_expires_at, refresh_expires_at, created_at)
    values (${input.personId}, ${input.appPasswordId}, ${input.accessHash}, ${input.refreshHash},
            ${input.accessExpiresAt}, ${input.refreshExpiresAt}, ${input.now})`;
}

export interface SessionRow {
  id: string;
  person_id: string;
  app_password_id: string;
  privileged: boolean;
  expires_at: Date;
  /** whose session it is (read in the same statement: every call of an app starts here) */
  member: MemberRow;
}

/** What siteAndSession read: the site's `site` answer version, its settings unless they were known at that version, and the session if asked. */
export interface SiteAndSession {
  version: number | null;
  /** null when the settings at `version` were known already (or there are none) */
  settings: SiteSettings | null;
  /** undefined when not asked for or not there */
  session: SessionRow | undefined;
}

/**
 * The site's settings, sent only when their version (answer_versions' `site`, bumped by any change) is not
 * `knownVersion`, and the protocol session a token's hash belongs to: what every XRPC request reads first,
 * in one statement.
 */
export async function siteAndSession(
  db: Db,
  knownVersion: number | null,
  lookup?: { kind: "access" | "refresh"; hash: string },
): Promise<SiteAndSession> {
  const [row] = await db<
    {
      version: number | null;
      settings: SiteSettings | null;
      session: (Omit<SessionRow, "member" | "expires_at"> & Omit<MemberRow, "id" | "suspended_at"> & {
        expires_at: string;
        suspended_at: string | null;
      }) | null;
    }[]
  >`
    with v as (select version from public.answer_versions where scope = 'site')
    select (select version from v) as version,
      (select row_to_json(s) from (
         select name, slug, domain, mode, modules, locales, config, updated_at from public.site_settings) s
       where (select version from v) is null or (select version from v) is distinct from ${knownVersion}::bigint) as settings,
      ${
    lookup
      ? db`(select row_to_json(x) from (
          select s.id, s.person_id, s.app_password_id, a.privileged,
            ${lookup.kind === "access" ? db`s.access_expires_at` : db`s.refresh_expires_at`} as expires_at,
            p.username, p.network_did, p.email, p.display_name, p.suspended_at
          from public.network_sessions s
          join public.network_app_passwords a on a.id = s.app_password_id
          join public.profiles p on p.id = s.person_id
          where ${lookup.kind === "access" ? db`s.access_hash` : db`s.refresh_hash`} = ${lookup.hash}) x)`
      : db`null::json`
  } as session`;
  return {
    version: row.version === null ? null : Number(row.version),
    settings: row.settings,
    session: row.session ? sessionOf(row.session) : undefined,
  };
}

function sessionOf(
  row: Omit<SessionRow, "member" | "expires_at"> & Omit<MemberRow, "id" | "suspended_at"> & {
    expires_at: string | Date;
    suspended_at: string | Date | null;
  },
): SessionRow {
  const { username, network_did, email, display_name, suspended_at, expires_at, ...session } = row;
  return {
    ...session,
    expires_at: new Date(expires_at),
    member: {
      id: row.person_id,
      username,
      network_did,
      email,
      display_name,
      suspended_at: suspended_at === null ? null : new Date(suspended_at),
    },
  };
}

/** The session an access (or refresh) token's hash belongs to, with that token's expiry and its member. */
export async function sessionByHash(db: Db, kind: "access" | "refresh", hash: string): Promise<SessionRow | undefined> {
  const [row] = await db<(Omit<SessionRow, "member"> & Omit<MemberRow, "id">)[]>`
    select s.id, s.person_id, s.app_password_id, a.privileged,
      ${kind === "access" ? db`s.access_expires_at` : db`s.refresh_expires_at`} as expires_at,
      p.username, p.network_did, p.email, p.display_name, p.suspended_at
    from public.network_sessions s
    join public.network_app_passwords a on a.id = s.app_password_id
    join public.profiles p on p.id = s.person_id
    where ${kind === "access" ? db`s.access_hash` : db`s.refresh_hash`} = ${hash}`;
  return row ? sessionOf(row) : undefined;
}

/** Rotates both tokens of a session; false when it ended meanwhile (or the refresh token was used already). */
export async function rotateSession(
  db: Db,
  input: { id: string; oldRefreshHash: string; now: Date } & SessionTokens,
): Promise<boolean> {
  const rows = await db`
    update public.network_sessions
    set access_hash = ${input.accessHash}, refresh_hash = ${input.refreshHash},
        access_expires_at = ${input.accessExpiresAt}, refresh_expires_at = ${input.refreshExpiresAt},
        refreshed_at = ${input.now}
    where id = ${input.id} and refresh_hash = ${input.oldRefreshHash}
    returning id`;
  return rows.length > 0;
}

export async function deleteSession(db: Db, id: string): Promise<void> {
  await db`delete from public.network_sessions where id = ${id}`;
}

/** Sign-out everywhere: every app session of the member ends. */
export async function deleteSessionsOf(db: Db, personId: string): Promise<number> {
  const rows = await db`delete from public.network_sessions where person_id = ${personId} returning id`;
  return rows.length;
}

/** A member's sessions whose refresh token expired are of no use to anybody: each sign-in clears them. */
export async function sweepSessionsOf(db: Db, personId: string, now: Date): Promise<number> {
  const rows = await db`
    delete from public.network_sessions where person_id = ${personId} and refresh_expires_at < ${now} returning id`;
  return rows.length;
}

/** Wrong app passwords from one address within the hour (a window of the site's rate-limit counters). */
export async function wrongPasswordCount(db: Db, bucket: string, now: Date): Promise<number> {
  const [hour] = await peekHits(db, bucket, [3600], now);
  return hour.hits;
}

export async function countWrongPassword(db: Db, bucket: string, now: Date): Promise<void> {
  await countHits(db, bucket, [3600], now);
}
