// The repository push (cloud mode): what content_pushes queues (migration 20261122000080) is written to
// the site's content directory and, when that is a git work tree, committed there with a message naming
// the entry and who changed it, its author the person who did.
//
// A push writes the entity as it is when the push runs, not as it was when queued: a late or repeated
// push leaves the directory right, and one that finds nothing to change makes no commit.
//   entry published            its record file (+ locale siblings) with the published values
//   entry unpublished          its record file with the draft's values and `published: false`
//   entry deleted              its files removed
//   asset in the library       its bytes at its library path (content/uploads/api/<id>/<file>, media/...)
//   asset deleted              its file removed
// The files come from the one serializer the import reads back (./record-file.ts); once written, the
// entry is read back from them with the import's own reader, and when that gives its rows exactly, the
// rows are marked `file` (migration 035): a re-import sees them unchanged, and a later edit of the file
// is the import's again. A draft differing from what is published (or anything the file cannot say)
// leaves the rows `hand`: the import keeps the database's copy, as for any API change.
//
// Runs in the dev host (createPushWorker: LISTEN content_push + a poll) or one batch per call of
// POST /repository/push (pushDue), with the same code.
import { isDeepStrictEqual } from "node:util";
import type { Sql } from "../db.ts";
import type { Clock } from "../clock.ts";
import type { Storage } from "../storage.ts";
import { createWorkerLoop, type WakeSource } from "../worker-loop.ts";
import { readRecordText } from "./record-entry.ts";
import { MEDIA_BUCKET } from "./import.ts";
import { recordFiles, recordPaths } from "./record-file.ts";
import { commitPaths, type GitPerson, inWorkTree } from "./repository.ts";
import {
  assetNow,
  claimPush,
  entryNow,
  type EntryRowNow,
  libraryPaths,
  markEntryPushed,
  pushAuthor,
  type PushOutcome,
  type PushRow,
  pushSite,
  recordPush,
} from "./push-store.ts";

export const PUSH_CHANNEL = "content_push";

export interface PushDeps {
  sql: Sql;
  storage: Storage;
  clock: Clock;
}

export interface PushCounts {
  claimed: number;
  pushed: number;
  /** failed this time, tried again after a backoff */
  retrying: number;
  /** can never succeed (a path outside the directory): kept with its reason */
  failed: number;
}

/** A push that can never succeed: recorded as failed, never retried. */
export class PushRefused extends Error {}

/** Claim lease: far longer than a push takes (files and one commit). */
const LEASE_SECONDS = 120;

/** Runs due pushes one after another, up to `maxPushes`; answers what happened. */
export async function pushDue(deps: PushDeps, maxPushes = 20): Promise<PushCounts> {
  const counts: PushCounts = { claimed: 0, pushed: 0, retrying: 0, failed: 0 };
  while (counts.claimed < maxPushes) {
    const row = await claimPush(deps.sql, { now: deps.clock.now(), leaseSeconds: LEASE_SECONDS });
    if (!row) break;
    counts.claimed++;
    let outcome: PushOutcome;
    try {
      outcome = { pushed: true, commit: await perform(deps, row) };
    } catch (error) {
      outcome = { pushed: false, error: describe(error), final: error instanceof PushRefused };
    }
    const recorded = await recordPush(deps.sql, row, outcome, deps.clock.now());
    if (!recorded) continue; // the lease ran out and another worker has the row now
    if (recorded.status === "pushed") counts.pushed++;
    else if (recorded.status === "failed") counts.failed++;
    else counts.retrying++;
  }
  return counts;
}

export interface PushWorker {
  runOnce(): Promise<PushCounts>;
  start(): Promise<void>;
  stop(): Promise<void>;
  readonly ready: Promise<void>;
}

/** The long-running worker the dev host starts: wakes on NOTIFY content_push, polls for retries. */
export function createPushWorker(
  deps: PushDeps & {
    listen?: WakeSource | false;
    pollIntervalMs?: number;
    batchSize?: number;
    onError?: (error: unknown) => void;
  },
): PushWorker {
  const batchSize = deps.batchSize ?? 20;
  const runOnce = () => pushDue(deps, batchSize);
  const loop = createWorkerLoop({
    sql: deps.sql,
    channel: PUSH_CHANNEL,
    listen: deps.listen,
    pollIntervalMs: deps.pollIntervalMs ?? 2_000,
    onError: deps.onError ?? ((error) => console.error("repository push:", error)),
    pass: async () => (await runOnce()).claimed >= batchSize,
  });
  return { runOnce, ready: loop.ready, start: loop.start, stop: loop.stop };
}

// ---- one push ---------------------------------------------------------------------------------------

interface Plan {
  /** path -> new content, or null to remove */
  files: Map<string, string | Uint8Array | null>;
  /** after the files are written (and committed) */
  done?: () => Promise<void>;
  subject: string;
}

/** Writes the entity's files, commits them where the directory is a work tree; answers the commit. */
async function perform(deps: PushDeps, row: PushRow): Promise<string | null> {
  const site = await pushSite(deps.sql);
  // the database holds a site imported from elsewhere now: its state is not this directory's to write
  if (site.sourceDir !== row.dir) {
    throw new PushRefused(
      `the site is imported from ${site.sourceDir ?? "no directory"} now, not from ${row.dir}`,
    );
  }
  const info = await Deno.stat(row.dir).catch(() => undefined);
  // never made here: a missing directory (moved, not mounted) is an error to retry, not a new directory
  if (!info?.isDirectory) throw new Error(`the content directory ${row.dir} is not there`);
  const plan = row.kind === "Entry" ? await entryPlan(deps, row, site) : await assetPlan(deps, row);
  for (const path of plan.files.keys()) checkPath(path, row.kind);
  await writeFiles(row.dir, plan.files);

  let commit: string | null = null;
  if (await inWorkTree(row.dir)) {
    const who = await pushAuthor(deps.sql, row.actor, row.keyId);
    const committer: GitPerson = { name: "Sitewire", email: `sitewire@${site.domain}` };
    commit = await commitPaths(row.dir, {
      paths: [...plan.files.keys()],
      message: `${plan.subject}\n\n${byWhom(who)}\n`,
      author: who.person ?? committer,
      committer,
      authorDate: row.createdAt,
    });
  }
  await plan.done?.();
  return commit;
}

const VERBS = { publish: "Publish", unpublish: "Unpublish", delete: "Delete" } as const;

function byWhom(who: Awaited<ReturnType<typeof pushAuthor>>): string {
  const person = who.person ? `${who.person.name} <${who.person.email}>` : undefined;
  const key = who.key ? `the management key "${who.key.name}" (${who.key.id})` : undefined;
  if (person && key) return `By ${person} with ${key}.`;
  if (key) return `With ${key}.`;
  if (person) return `By ${person}, in the database.`;
  return "Made in the database.";
}

async function entryPlan(
  deps: PushDeps,
  row: PushRow,
  site: Awaited<ReturnType<typeof pushSite>>,
): Promise<Plan> {
  const codes = site.locales.map((l) => l.code);
  const { preview, published, everPublished, model } = await entryNow(deps.sql, row.entityId);
  const paths = new Set(row.paths.flatMap((p) => recordPaths(p, codes, site.defaultLocale)));
  const subject = `${VERBS[row.action]} ${row.entityId}`;
  // the repository holds what is published, and what was unpublished; a draft never published stays out
  const shown = published ?? (preview && (everPublished || preview.source === "file") ? preview : undefined);
  if (!shown || !model) {
    return { files: new Map([...paths].map((p) => [p, null])), subject };
  }
  const library = await libraryPaths(deps.sql, shown.assetLinks);
  const texts = recordFiles(
    {
      path: shown.path,
      model,
      fields: shown.fields,
      published: Boolean(published),
      access: shown.access,
      createdAt: shown.createdAt,
    },
    { defaultLocale: site.defaultLocale, locales: codes, assetPath: (id) => library.get(id) },
  );
  for (const p of recordPaths(shown.path, codes, site.defaultLocale)) paths.add(p);
  const files = new Map<string, string | null>(
    [...paths].map((p) => [p, texts.find((t) => t.path === p)?.text ?? null]),
  );

  // the rows become the directory's only when the files read back as exactly these rows
  const done = async () => {
    let read;
    try {
      read = readRecordText({
        id: row.entityId,
        model,
        files: texts,
        config: { defaultLocale: site.defaultLocale, locales: site.locales },
        library: [...library].map(([id, path]) => ({ id, path })),
      }).entry;
    } catch {
      return; // the import would refuse the file: the rows stay the database's
    }
    const agrees = (r: EntryRowNow | undefined) =>
      r !== undefined && r.modelId === read.modelId && r.path === read.path && r.access === read.access &&
      r.searchText === read.searchText && isDeepStrictEqual(r.fields, read.fields) &&
      isDeepStrictEqual([...r.links].sort(), read.links) &&
      isDeepStrictEqual([...r.assetLinks].sort(), read.assetLinks);
    if (read.published !== Boolean(published) || !agrees(preview) || (published && !agrees(published))) {
      return;
    }
    await markEntryPushed(deps.sql, row.entityId, [preview!, ...(published ? [published] : [])]);
  };
  return { files, done, subject };
}

async function assetPlan(deps: PushDeps, row: PushRow): Promise<Plan> {
  const asset = await assetNow(deps.sql, row.entityId);
  const live = asset?.published && !/^https?:\/\//i.test(asset.path) ? asset : undefined;
  const paths = new Set(row.paths);
  if (live) paths.add(live.path);
  const files = new Map<string, Uint8Array | null>();
  for (const path of paths) {
    if (live && path === live.path) {
      const stored = await deps.storage.get(MEDIA_BUCKET, live.storageKey);
      if (!stored) throw new Error(`the library holds no bytes for ${live.path}`);
      files.set(path, stored.bytes);
    } else {
      files.set(path, null);
    }
  }
  return {
    files,
    subject: `${VERBS[row.action]} asset ${row.entityId} (${live?.path ?? row.paths.join(", ")})`,
  };
}

/**
 * Paths come from rows an administrator can write: a push writes only records (records/...md) and
 * library files (media/..., content/uploads/api/...) inside the directory, never anywhere else.
 */
function checkPath(path: string, kind: PushRow["kind"]): void {
  const segments = path.split("/");
  const inside = !path.startsWith("/") && !path.includes("\\") && !path.includes("\0") &&
    segments.every((s) => s !== "" && s !== "." && s !== "..");
  const area = kind === "Entry"
    ? /^records\/[^/]+\/.+\.md$/.test(path)
    : /^(media|content\/uploads\/api)\/.+/.test(path);
  if (!inside || !area) {
    throw new PushRefused(
      `${path} is not a ${kind === "Entry" ? "record" : "library"} path inside the content directory`,
    );
  }
}

/** Writes (through a temporary file and a rename) what changed, removes what goes, and folders left empty. */
async function writeFiles(dir: string, files: Map<string, string | Uint8Array | null>): Promise<void> {
  for (const [path, content] of files) {
    const full = `${dir}/${path}`;
    if (content === null) {
      try {
        await Deno.remove(full);
      } catch (error) {
        if (!(error instanceof Deno.errors.NotFound)) throw error;
        continue;
      }
      await removeEmptyFolders(dir, path);
      continue;
    }
    const bytes = typeof content === "string" ? new TextEncoder().encode(content) : content;
    const current = await Deno.readFile(full).catch(() => undefined);
    if (current && isDeepStrictEqual(current, bytes)) continue;
    await Deno.mkdir(full.slice(0, full.lastIndexOf("/")), { recursive: true });
    const temporary = `${full}.sitewire-${crypto.randomUUID().slice(0, 8)}`;
    await Deno.writeFile(temporary, bytes);
    try {
      await Deno.rename(temporary, full);
    } catch (error) {
      await Deno.remove(temporary).catch(() => {});
      throw error;
    }
  }
}

/** A removed file's folders go while empty, up to the area (records, media, content) itself. */
async function removeEmptyFolders(dir: string, path: string): Promise<void> {
  const segments = path.split("/").slice(0, -1);
  while (segments.length > 1) {
    try {
      await Deno.remove(`${dir}/${segments.join("/")}`); // fails on a folder that holds anything
    } catch {
      return;
    }
    segments.pop();
  }
}

function describe(error: unknown): string {
  const text = error instanceof Error ? error.message : String(error);
  return text.length > 500 ? text.slice(0, 497) + "..." : text;
}
