// com.atproto.sync.subscribeRepos for every subscriber of this instance: one hub listens for the
// database's `network_seq` notifications (and is poked in-process after a commit here, which is how the
// embedded PGlite, whose NOTIFY reaches only the committing connection, wakes it), reads the new events
// once, frames them once, and keeps the latest in a ring. Each subscriber replays from its cursor (the
// ring, else the table) and then follows live; a cursor older than the backfill window
// (NETWORK_FIREHOSE_BACKFILL_HOURS) is told OutdatedCursor and replayed from the window's first event, as
// the reference server does. One whose socket stops draining is cut off with ConsumerTooSlow instead of
// growing memory: the frames waiting unsent on a socket are bounded by NETWORK_FIREHOSE_BUFFER (plus the
// one frame that crossed it), after which it gets the protocol's error frame and no more. (Deno cannot
// drop a socket whose peer reads nothing: the error and close frames wait behind what is queued, and the
// bytes stay bounded until the peer reads or goes.) Subscribers are written to network_subscribers so an
// operator sees them across instances.
//
// A write made here hands the hub its events before it commits (expect): each is known by its kind and
// the SHA-256 of its body, which the database's notification names beside the number it was given
// (migration network_seq_notify_body). A notification for the number right after the ring's last, of an
// event handed in, is framed from the writer's own bytes: the frame is a function of the kind, the number
// and the body alone, so it is the frame a read would make. Anything else (a gap, another instance's
// event, a notification that names no body) reads the table, as does every commit here while no
// notification has been heard (the embedded PGlite delivers none across connections); a write whose
// notification does not come within FALLBACK_MS reads it too.
import type { FunctionContext } from "../../../shared/context.ts";
import { dropSubscriber, eventsAfter, lastSeq, replayStart, saveSubscriber, type SeqEvent } from "../store/repo.ts";
import { sha256HexSync } from "../../../shared/ids.ts";
import { errorFrame, infoFrame, messageFrame } from "./events.ts";

const PAGE = 500;
const RING = 2000;
const SAVE_EVERY_MS = 5_000;
/** events handed in by writers and not yet announced (a rolled-back write's wait here until pushed out) */
const EXPECTED = 1024;
/** how long a write made here waits for its notification before the table is read for it */
const FALLBACK_MS = 250;

type EventKind = Parameters<typeof messageFrame>[0];

/** What a writer's event is known by in the stream's notification: `<kind> <sha-256 of the body, hex>`. */
export function eventKey(kind: EventKind, body: Uint8Array): string {
  return `${kind} ${sha256HexSync(body)}`;
}

/** A `network_seq` notification's payload: `<seq> <kind> <body sha-256>` (the number alone from older triggers). */
export function readNotification(payload: string): { seq: number; key: string | undefined } | undefined {
  const [number, kind, hash] = payload.split(" ");
  const seq = Number(number);
  if (!/^\d+$/.test(number ?? "") || !Number.isSafeInteger(seq)) return undefined;
  return { seq, key: kind && hash ? `${kind} ${hash}` : undefined };
}

interface Framed {
  seq: number;
  frame: Uint8Array;
}

/** The index of the first frame numbered after `seq` in frames sorted by number (their length if none). */
export function firstAfter(frames: { seq: number }[], seq: number): number {
  let low = 0, high = frames.length;
  while (low < high) {
    const mid = (low + high) >>> 1;
    if (frames[mid].seq > seq) high = mid;
    else low = mid + 1;
  }
  return low;
}

function frameOf(event: SeqEvent): Framed {
  return { seq: event.seq, frame: messageFrame(event.kind, event.seq, event.body) };
}

export class Firehose {
  readonly instance = crypto.randomUUID();
  private ring: Framed[] = [];
  /** the ring holds every event after this number */
  private ringFrom = 0;
  private top = 0;
  private started: Promise<void> | undefined;
  private unlisten: (() => Promise<unknown>) | undefined;
  private running: Promise<void> | undefined;
  /** a read of the table is asked for */
  private wantLoad = false;
  /** notifications not yet taken in, in the order they came */
  private notes: { seq: number; key: string | undefined }[] = [];
  /** events written here, by eventKey, until their notification comes */
  private expected = new Map<string, { kind: EventKind; body: Uint8Array }>();
  /** whether any notification has been heard since the hub started (none on the embedded PGlite) */
  private hearing = false;
  /** writes made here whose notification is awaited, with when the table is read for them instead */
  private awaited = new Map<string, number>();
  private fallback: ReturnType<typeof setTimeout> | undefined;
  private waiters = new Set<() => void>();
  private readonly sockets = new Set<WebSocket>();

  constructor(
    private readonly ctx: FunctionContext,
    private readonly maxBuffered: number,
    private readonly backfillMs: number,
  ) {}

  /** Called after a commit in this process (and by the database's notifications): reads the table. */
  poke(): void {
    if (!this.started) return;
    this.wantLoad = true;
    this.kick();
  }

  /**
   * A writer's event, before its transaction commits: framed from these bytes when its notification comes.
   * Answers its key for committed(), or undefined while nobody is subscribed here.
   */
  expect(kind: EventKind, body: Uint8Array): string | undefined {
    if (!this.started) return undefined;
    const key = eventKey(kind, body);
    this.expected.delete(key);
    this.expected.set(key, { kind, body });
    if (this.expected.size > EXPECTED) this.expected.delete(this.expected.keys().next().value!);
    return key;
  }

  /** The writer's transaction failed: its events will not come. */
  forget(keys: string[]): void {
    for (const key of keys) this.expected.delete(key);
  }

  /**
   * After a commit in this process whose events were handed in with expect() (`keys`). While notifications
   * are heard they bring the events (the table is read for any whose notification has not come within
   * FALLBACK_MS); otherwise the table is read now, as poke() does.
   */
  committed(keys: string[]): void {
    if (!this.started) return;
    if (!this.hearing) {
      this.forget(keys); // read from the table now
      return this.poke();
    }
    const due = Date.now() + FALLBACK_MS;
    for (const key of keys) if (this.expected.has(key)) this.awaited.set(key, due);
    if (this.awaited.size && this.fallback === undefined) this.armFallback(FALLBACK_MS);
  }

  private armFallback(ms: number) {
    const timer = setTimeout(() => {
      this.fallback = undefined;
      const now = Date.now();
      let late = false;
      for (const [key, due] of this.awaited) {
        if (!this.expected.has(key)) this.awaited.delete(key);
        else if (due <= now) {
          this.awaited.delete(key);
          this.expected.delete(key);
          late = true;
        }
      }
      if (late) this.poke();
      const next = Math.min(...this.awaited.values());
      if (this.awaited.size) this.armFallback(Math.max(0, next - now));
    }, ms);
    Deno.unrefTimer(timer);
    this.fallback = timer;
  }

  /** A `network_seq` notification. */
  private heard(payload: string): void {
    if (!this.started) return;
    const note = readNotification(payload);
    this.hearing = true;
    if (note) this.notes.push(note);
    else this.wantLoad = true;
    this.kick();
  }

  private kick(): void {
    if (this.running) return;
    this.running = this.run().finally(() => {
      this.running = undefined;
      if (this.wantLoad || this.notes.length) this.kick();
    });
  }

  /** Takes in the notifications and the reads asked for, one at a time, in order. */
  private async run(): Promise<void> {
    while (this.wantLoad || this.notes.length) {
      let framed = false;
      while (!this.wantLoad && this.notes.length) {
        const note = this.notes.shift()!;
        if (note.seq <= this.top) continue; // read with an earlier load
        const event = note.key === undefined ? undefined : this.expected.get(note.key);
        if (note.key !== undefined) this.expected.delete(note.key);
        if (!event || note.seq !== this.top + 1) {
          // not ours, or something before it is missing here: the table has it
          this.wantLoad = true;
          break;
        }
        this.push([{ seq: note.seq, frame: messageFrame(event.kind, note.seq, event.body) }]);
        framed = true;
      }
      if (framed) this.wake();
      if (this.wantLoad) {
        this.wantLoad = false;
        await this.load();
      }
    }
  }

  private push(frames: Framed[]): void {
    if (!frames.length) return;
    for (const frame of frames) this.ring.push(frame);
    this.top = frames[frames.length - 1].seq;
    if (this.ring.length > RING) {
      const dropped = this.ring.splice(0, this.ring.length - RING);
      this.ringFrom = dropped[dropped.length - 1].seq;
    }
  }

  private wake(): void {
    const waiters = [...this.waiters];
    this.waiters.clear();
    for (const wake of waiters) wake();
  }

  private start(): Promise<void> {
    this.started ??= (async () => {
      this.top = await lastSeq(this.ctx.sql);
      this.ringFrom = this.top;
      try {
        const meta = await this.ctx.sql.listen("network_seq", (payload) => this.heard(payload));
        this.unlisten = () => meta.unlisten();
      } catch (error) {
        console.error("network firehose: LISTEN failed; in-process commits still wake it", error);
      }
    })();
    return this.started;
  }

  private async load(): Promise<void> {
    try {
      for (;;) {
        const events = await eventsAfter(this.ctx.sql, this.top, PAGE);
        this.push(events.map(frameOf));
        if (events.length < PAGE) break;
      }
    } catch (error) {
      console.error("network firehose:", error);
    }
    this.wake();
  }

  private next(): Promise<void> {
    return new Promise((resolve) => this.waiters.add(resolve));
  }

  /**
   * The frames after `after`: from the ring when it holds them, answered at once (every subscriber asks
   * after every event, fifty of them a commit, so the common case makes no promise and waits for none),
   * else read from the table.
   */
  private framesAfter(after: number): Framed[] | Promise<Framed[]> {
    if (after >= this.ringFrom) {
      // every subscriber asks after every load: a search, not a pass over the whole ring each time
      const from = firstAfter(this.ring, after);
      return this.ring.slice(from, from + PAGE);
    }
    return eventsAfter(this.ctx.sql, after, PAGE).then((events) => events.map(frameOf));
  }

  /** The latest number in the stream (FutureCursor is a cursor beyond it). */
  async current(): Promise<number> {
    return Math.max(this.top, await lastSeq(this.ctx.sql));
  }

  /** Serves one subscriber on an upgraded socket until it closes or falls too far behind. */
  async serve(socket: WebSocket, cursor: number | undefined, remote: string): Promise<void> {
    await this.start();
    const id = crypto.randomUUID();
    let open = true;
    const opened = new Promise<void>((resolve) => {
      if (socket.readyState === WebSocket.OPEN) resolve();
      socket.addEventListener("open", () => resolve());
    });
    socket.addEventListener("close", () => {
      open = false;
      for (const wake of this.waiters) wake();
    });
    socket.addEventListener("error", () => (open = false));
    this.sockets.add(socket);
    await opened;
    try {
      const current = await this.current();
      if (cursor !== undefined && cursor > current) {
        socket.send(errorFrame("FutureCursor", "Cursor in the future."));
        socket.close(1008, "FutureCursor");
        return;
      }
      let last = current;
      if (cursor !== undefined) {
        // the table decides even when the ring could replay: the ring keeps the latest events however old
        // they are (a quiet stream's for days), so being in it says nothing about the window
        const start = await replayStart(this.ctx.sql, cursor, this.backfillMs);
        if (start.outdated) {
          socket.send(infoFrame("OutdatedCursor", "Requested cursor exceeded limit. Possibly missing events"));
        }
        last = start.after;
      }
      await saveSubscriber(this.ctx.sql, { id, instance: this.instance, remote, cursor: cursor ?? null, lastSeq: last });
      let saved = Date.now();
      while (open) {
        const waiting = this.next();
        const found = this.framesAfter(last);
        const frames = Array.isArray(found) ? found : await found;
        for (const { seq, frame } of frames) {
          if (!open) break;
          if (socket.bufferedAmount > this.maxBuffered) {
            socket.send(errorFrame("ConsumerTooSlow", "The subscriber does not keep up with the stream."));
            socket.close(1008, "ConsumerTooSlow");
            return;
          }
          socket.send(frame);
          last = seq;
        }
        if (Date.now() - saved > SAVE_EVERY_MS) {
          saved = Date.now();
          await saveSubscriber(this.ctx.sql, { id, instance: this.instance, remote, cursor: cursor ?? null, lastSeq: last });
        }
        // a full page means more is there already; the unused waiter goes at the next load
        if (frames.length < PAGE && open) await waiting;
      }
    } catch (error) {
      if (open) console.error("network firehose subscriber:", error);
      try {
        socket.close(1011, "InternalError");
      } catch { /* already closed */ }
    } finally {
      this.sockets.delete(socket);
      await dropSubscriber(this.ctx.sql, id).catch(() => {});
      if (this.sockets.size === 0) await this.stop();
    }
  }

  /** Stops listening when nobody is subscribed (and at shutdown). */
  async stop(): Promise<void> {
    const unlisten = this.unlisten;
    this.unlisten = undefined;
    this.started = undefined;
    this.ring = [];
    this.notes = [];
    this.expected.clear();
    this.awaited.clear();
    this.hearing = false;
    if (this.fallback !== undefined) clearTimeout(this.fallback);
    this.fallback = undefined;
    await unlisten?.().catch(() => {});
  }
}
