// Answers of hot reads kept in this process's memory, each under the version of its scope it was built
// at (migrations/20261126001550_answer_versions.sql). A request may take a kept answer only if it was
// built at the version the request's own admission saw, or later: the version is bumped in the
// transaction of every change, so once a change has returned, no instance serves what it replaced.
// The bump's notification (channel `answer_versions`) drops the older answers everywhere at once; it only
// frees memory sooner, since the version check alone keeps answers fresh.
//
// Bounded by size (least recently used goes first); ANSWER_CACHE_MB=0 switches it off.
import type { Sql } from "./db.ts";

export interface KeptAnswer {
  body: string;
  etag: string;
  contentType: string;
  /**
   * The body already parsed, for a caller that keeps data it computes from rather than an answer it
   * sends (the scheduling function's slot data): never mutated by whoever takes it. Counted in the budget
   * as its body's size.
   */
  value?: unknown;
}

interface Kept extends KeptAnswer {
  scope: string;
  version: number;
  bytes: number;
}

export interface AnswerCache {
  /** The answer kept for `key` in `scope` if it was built at `version` or later. */
  get(scope: string, version: number, key: string): KeptAnswer | undefined;
  /** Keeps an answer built by a request that saw `version`. */
  put(scope: string, version: number, key: string, answer: KeptAnswer): void;
  /** Forgets every answer of `scope` built before `version` (what a notification does). */
  dropBefore(scope: string, version: number): void;
  readonly size: number;
}

export const ANSWER_VERSIONS_CHANNEL = "answer_versions";

/** A string's size in memory, near enough for a budget (UTF-16). */
const sizeOf = (answer: KeptAnswer, key: string) =>
  2 * (answer.body.length + answer.etag.length + key.length) + 128;

export function answerCache(sql: Sql | undefined, maxBytes: number): AnswerCache {
  const kept = new Map<string, Kept>();
  let bytes = 0;
  let listening = false;

  const forget = (id: string, entry: Kept) => {
    kept.delete(id);
    bytes -= entry.bytes;
  };

  const cache: AnswerCache = {
    get(scope, version, key) {
      const id = `${scope}\n${key}`;
      const entry = kept.get(id);
      if (!entry) return undefined;
      if (entry.version < version) {
        forget(id, entry);
        return undefined;
      }
      // most recently used last: eviction takes from the front
      kept.delete(id);
      kept.set(id, entry);
      return entry;
    },
    put(scope, version, key, answer) {
      if (maxBytes <= 0) return;
      const id = `${scope}\n${key}`;
      const entry: Kept = { ...answer, scope, version, bytes: sizeOf(answer, key) };
      if (entry.bytes > maxBytes / 8) return; // one huge answer would push out many small hot ones
      const old = kept.get(id);
      if (old) {
        if (old.version > version) return; // a request that saw a later version already kept its answer
        forget(id, old);
      }
      kept.set(id, entry);
      bytes += entry.bytes;
      for (const [oldest, first] of kept) {
        if (bytes <= maxBytes) break;
        forget(oldest, first);
      }
      if (!listening && sql) listen(sql);
    },
    dropBefore(scope, version) {
      for (const [id, entry] of kept) if (entry.scope === scope && entry.version < version) forget(id, entry);
    },
    get size() {
      return kept.size;
    },
  };

  // started with the first kept answer, so a process that never caches holds no listening connection
  function listen(db: Sql) {
    listening = true;
    db.listen(ANSWER_VERSIONS_CHANNEL, (payload) => {
      const [scope, version] = payload.split(" ");
      if (scope && Number.isFinite(Number(version))) cache.dropBefore(scope, Number(version));
    }).catch((error) => {
      // the versions still keep every answer fresh; stale ones only wait for eviction
      console.warn(`answer cache: cannot listen for ${ANSWER_VERSIONS_CHANNEL} (${error?.message ?? error})`);
    });
  }

  return cache;
}
