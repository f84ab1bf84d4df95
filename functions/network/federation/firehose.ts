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
import type { FunctionContext } from "../../../shared/context.ts";
import { dropSubscriber, eventsAfter, lastSeq, replayStart, saveSubscriber, type SeqEvent } from "../store/repo.ts";
import { errorFrame, infoFrame, messageFrame } from "./events.ts";

const PAGE = 500;
const RING = 2000;
const SAVE_EVERY_MS = 5_000;

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
  private loading: Promise<void> | undefined;
  private again = false;
  private waiters = new Set<() => void>();
  private readonly sockets = new Set<WebSocket>();

  constructor(
    private readonly ctx: FunctionContext,
    private readonly maxBuffered: number,
    private readonly backfillMs: number,
  ) {}

  /** Called after a commit in this process (and by the database's notifications). */
  poke(): void {
    if (!this.started) return;
    if (this.loading) {
      this.again = true;
      return;
    }
    this.loading = this.load().finally(() => {
      this.loading = undefined;
      if (this.again) {
        this.again = false;
        this.poke();
      }
    });
  }

  private start(): Promise<void> {
    this.started ??= (async () => {
      this.top = await lastSeq(this.ctx.sql);
      this.ringFrom = this.top;
      try {
        const meta = await this.ctx.sql.listen("network_seq", () => this.poke());
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
        for (const event of events) this.ring.push(frameOf(event));
        if (events.length) this.top = events[events.length - 1].seq;
        if (this.ring.length > RING) {
          const dropped = this.ring.splice(0, this.ring.length - RING);
          this.ringFrom = dropped[dropped.length - 1].seq;
        }
        if (events.length < PAGE) break;
      }
    } catch (error) {
      console.error("network firehose:", error);
    }
    const waiters = [...this.waiters];
    this.waiters.clear();
    for (const wake of waiters) wake();
  }

  private next(): Promise<void> {
    return new Promise((resolve) => this.waiters.add(resolve));
  }

  private async framesAfter(after: number): Promise<Framed[]> {
    if (after >= this.ringFrom) {
      // every subscriber asks after every load: a search, not a pass over the whole ring each time
      const from = firstAfter(this.ring, after);
      return this.ring.slice(from, from + PAGE);
    }
    return (await eventsAfter(this.ctx.sql, after, PAGE)).map(frameOf);
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
        const frames = await this.framesAfter(last);
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
    await unlisten?.().catch(() => {});
  }
}
