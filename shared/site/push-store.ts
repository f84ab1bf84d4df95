// The repository push's SQL (table content_pushes, migration 20261122000080): claim one due push, record
// how it went, read what an entry or asset is now, and mark an entry's rows as the directory's once its
// files are pushed. ./push.ts does the work between.
import type { Db, Sql } from "../db.ts";
import { backoffSeconds } from "../webhooks/outbox.ts";
import type { SiteLocale } from "./config.ts";
import type { Access } from "./snapshot.ts";
import type { Model } from "./models.ts";

export type PushKind = "Entry" | "Asset";
export type PushAction = "publish" | "unpublish" | "delete";

export interface PushRow {
  id: number;
  kind: PushKind;
  entityId: string;
  action: PushAction;
  paths: string[];
  dir: string;
  actor: string | null;
  keyId: string | null;
  status: "pending" | "pushed" | "failed";
  /** attempts so far, counting the one a claim just started */
  attempts: number;
  nextAttemptAt: Date;
  lastError: string | null;
  commit: string | null;
  createdAt: Date;
  pushedAt: Date | null;
}

const ROW =
  `id::int as id, kind, entity_id as "entityId", action, paths, dir, actor, key_id as "keyId", status,
  attempts, next_attempt_at as "nextAttemptAt", last_error as "lastError", commit, created_at as "createdAt",
  pushed_at as "pushedAt"`;

/**
 * Claims the oldest due push, or none. One push runs at a time (they write into one directory and one
 * git index): a claim waits for any other claim to commit (an advisory lock held for the claim's own
 * short transaction) and takes nothing while another push holds a live lease. SKIP LOCKED leaves rows
 * someone else has locked alone; a worker that dies mid-push loses its lease and the row comes back.
 */
export async function claimPush(
  sql: Sql,
  options: { now: Date; leaseSeconds: number },
): Promise<PushRow | undefined> {
  return await sql.begin(async (tx) => {
    await tx`select pg_advisory_xact_lock(hashtext('sitewire.content-push'))`;
    const [row] = await tx<PushRow[]>`
      update public.content_pushes p
         set attempts = p.attempts + 1,
             claimed_until = ${options.now}::timestamptz + make_interval(secs => ${options.leaseSeconds})
       where p.id = (
         select id from public.content_pushes
          where status = 'pending' and next_attempt_at <= ${options.now}::timestamptz
            and (claimed_until is null or claimed_until < ${options.now}::timestamptz)
            and not exists (select 1 from public.content_pushes busy
                            where busy.status = 'pending' and busy.claimed_until >= ${options.now}::timestamptz)
          order by id
          limit 1
          for update skip locked)
      returning ${tx.unsafe(ROW)}`;
    return row;
  }) as PushRow | undefined;
}

export type PushOutcome =
  | { pushed: true; commit: string | null }
  | { pushed: false; error: string; final?: boolean };

/**
 * Records a claimed push: done (with its commit), or tried again after a backoff (10 s doubling up to an
 * hour, without end: a directory that comes back gets its pushes), or failed for good when it never can
 * succeed. Only the claim that ran it records it; answers the row, or undefined for a stale claim.
 */
export async function recordPush(
  db: Db,
  row: PushRow,
  outcome: PushOutcome,
  now: Date,
): Promise<PushRow | undefined> {
  const [updated] = outcome.pushed
    ? await db<PushRow[]>`
        update public.content_pushes
           set status = 'pushed', pushed_at = ${now}, commit = ${outcome.commit}, last_error = null, claimed_until = null
         where id = ${row.id} and status = 'pending' and attempts = ${row.attempts}
        returning ${db.unsafe(ROW)}`
    : await db<PushRow[]>`
        update public.content_pushes
           set status = ${outcome.final ? "failed" : "pending"},
               next_attempt_at = ${
      outcome.final ? row.nextAttemptAt : new Date(now.getTime() + backoffSeconds(row.attempts) * 1000)
    },
               last_error = ${outcome.error.slice(0, 500)}, claimed_until = null
         where id = ${row.id} and status = 'pending' and attempts = ${row.attempts}
        returning ${db.unsafe(ROW)}`;
  return updated;
}

/**
 * What a push needs of the site: its locales, its domain (the committer's address) and the directory it
 * is imported from now.
 */
export async function pushSite(
  db: Db,
): Promise<{ locales: SiteLocale[]; defaultLocale: string; domain: string; sourceDir: string | null }> {
  const [site] = await db<{ locales: SiteLocale[]; domain: string; source_dir: string | null }[]>`
    select locales, domain, source_dir from public.site_settings`;
  const locales = site?.locales ?? [];
  const defaultLocale = (locales.find((l) => l.default) ?? locales[0])?.code ?? "en-US";
  return { locales, defaultLocale, domain: site?.domain ?? "localhost", sourceDir: site?.source_dir ?? null };
}

export interface EntryRowNow {
  stage: "preview" | "published";
  modelId: string;
  path: string;
  access: Access;
  fields: Record<string, Record<string, unknown>>;
  links: string[];
  assetLinks: string[];
  searchText: string;
  createdAt: Date;
  changeSeq: string;
  source: "file" | "hand";
}

/** An entry's rows as they are now, whether it was ever published, and its model. */
export async function entryNow(
  db: Db,
  id: string,
): Promise<{ preview?: EntryRowNow; published?: EntryRowNow; everPublished: boolean; model?: Model }> {
  const rows = await db<EntryRowNow[]>`
    select stage, model_id as "modelId", path, access, fields, links, asset_links as "assetLinks",
           search_text as "searchText", created_at as "createdAt", change_seq::text as "changeSeq", source
    from public.content_entries where id = ${id}`;
  const preview = rows.find((r) => r.stage === "preview");
  const published = rows.find((r) => r.stage === "published");
  const [meta] = await db<{ ever: boolean }[]>`
    select first_published_at is not null as ever from public.content_meta where kind = 'Entry' and id = ${id}`;
  const modelId = (published ?? preview)?.modelId;
  const [model] = modelId
    ? await db<Model[]>`
        select id, folder, name, description, display_field as "displayField", fields, stock
        from public.content_models where id = ${modelId}`
    : [];
  return { preview, published, everPublished: Boolean(published) || Boolean(meta?.ever), model };
}

/** Library paths (or addresses) of these assets, by id. */
export async function libraryPaths(db: Db, ids: string[]): Promise<Map<string, string>> {
  if (!ids.length) return new Map();
  const rows = await db<
    { id: string; path: string }[]
  >`select id, path from public.content_assets where id = any(${ids}::text[])`;
  return new Map(rows.map((r) => [r.id, r.path]));
}

/** An asset's file as it is now (undefined once the asset is gone). */
export async function assetNow(
  db: Db,
  id: string,
): Promise<{ path: string; storageKey: string; published: boolean } | undefined> {
  const [row] = await db<{ path: string; storageKey: string; published: boolean }[]>`
    select path, storage_key as "storageKey", published from public.content_assets where id = ${id}`;
  return row;
}

/** Who made the change: the person (their name and address) and the management key, as far as known. */
export async function pushAuthor(db: Db, actor: string | null, keyId: string | null): Promise<{
  person?: { name: string; email: string };
  key?: { id: string; name: string };
}> {
  const [person] = actor
    ? await db<{ name: string; email: string }[]>`
        select coalesce(nullif(p.display_name, ''), split_part(coalesce(p.email, u.email), '@', 1)) as name,
               coalesce(p.email, u.email) as email
        from auth.users u left join public.profiles p on p.id = u.id
        where u.id::text = ${actor}`
    : [];
  const [key] = keyId
    ? await db<
      { id: string; name: string }[]
    >`select id::text as id, name from public.api_keys where id::text = ${keyId}`
    : [];
  return { person: person?.email ? person : undefined, key };
}

/**
 * The entry's rows are the directory's now: source `file`, written as the import writes (migration 035's
 * trigger reads `sitewire.writer`), for the rows still as they were read (change_seq unchanged). An owner
 * change alone reports nothing (migration 080).
 */
export async function markEntryPushed(
  sql: Sql,
  id: string,
  rows: { stage: string; changeSeq: string }[],
): Promise<number> {
  return await sql.begin(async (tx) => {
    await tx`select set_config('sitewire.writer', 'import', true)`;
    const marked = await tx`
      update public.content_entries e set source = 'file'
      from unnest(${rows.map((r) => r.stage)}::text[], ${
      rows.map((r) => r.changeSeq)
    }::bigint[]) as read(stage, seq)
      where e.id = ${id} and e.stage = read.stage and e.change_seq = read.seq and e.source <> 'file'
      returning 1`;
    return marked.length;
  }) as number;
}
