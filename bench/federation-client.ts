// The federation bench's clients, in a worker thread of their own: the writers (one app per joined
// member), the consumer that verifies every commit and the subscribers that time each frame. A relay and
// the apps are other machines; run on the host's thread they would take its time from the server they
// measure (fifty frame decodes and a signature check for every commit). Every time is this thread's own
// clock, so "sent" and "delivered" are compared on one clock.
import { AtpAgent } from "@atproto/api";
import { decodeAll } from "@atproto/lex-cbor";
import { readFrame } from "../functions/network/federation/events.ts";
import { verifyCommitEvent } from "../tests/helpers/firehose.ts";
import type { WorkerOutcome } from "../shared/worker-call.ts";

export interface FederationPlan {
  baseUrl: string;
  writers: { did: string; didKey: string; handle: string; password: string }[];
  commits: number;
  /**
   * Commits sent and verified before the timed run, with every subscriber live: the reference PDS's
   * createRecord rate is taken after its seeding and its one-writer run, so both sides are timed warm
   */
  warmupCommits: number;
  subscribers: number;
  patienceMs: number;
  /** after the run at full speed, this many commits sent at `pacedRate` a second, for latency alone */
  pacedCommits: number;
  pacedRate: number;
}

export interface FederationFigures {
  writtenMs: number;
  totalMs: number;
  delivered: number[];
  pacedDelivered: number[];
  verified: number;
}

type FederationOutcome = WorkerOutcome<FederationFigures>;

async function run(plan: FederationPlan): Promise<FederationOutcome> {
  const keyOf = new Map(plan.writers.map((w) => [w.did, w.didKey]));
  const agents = await Promise.all(plan.writers.map(async (w) => {
    const agent = new AtpAgent({ service: plan.baseUrl });
    await agent.login({ identifier: w.handle, password: w.password });
    return { did: w.did, agent };
  }));

  const started = new Map<string, number>(); // op path → when its write was sent
  // The consumer decodes every #commit frame; the subscribers only note when each arrives (its header
  // read, the body left alone: fifty full decodes a commit took a tenth of the two cores the server
  // shares). The stream is in one order for all, so a subscriber's last #commit frames are the
  // consumer's last ones.
  const order: (string | undefined)[] = []; // each #commit the consumer saw: its op path, if the bench wrote it
  const arrivals: number[][] = [];
  const sockets: WebSocket[] = [];
  let verified = 0;
  let verifying = Promise.resolve();
  let rejected: unknown;
  // the consumer resolves `done` once it has verified `target` of the bench's commits
  let target = 0;
  let allVerified!: () => void;
  let done!: Promise<void>;
  const expect = (commits: number) => {
    verified = 0;
    target = commits;
    done = new Promise<void>((resolve) => (allVerified = resolve));
  };
  const url = `${plan.baseUrl.replace("http", "ws")}/xrpc/com.atproto.sync.subscribeRepos`;
  const open = (onFrame: (bytes: Uint8Array) => void) =>
    new Promise<void>((resolve, reject) => {
      const socket = new WebSocket(url);
      socket.binaryType = "arraybuffer";
      socket.onopen = () => resolve();
      socket.onerror = () => reject(new Error("a subscriber could not connect"));
      socket.onclose = (e) => e.code !== 1000 && e.code !== 1005 && (rejected ??= new Error(`a subscriber was cut off: ${e.code} ${e.reason}`));
      socket.onmessage = (e) => onFrame(new Uint8Array(e.data as ArrayBuffer));
      sockets.push(socket);
    });
  const pathOf = (frame: ReturnType<typeof readFrame>) => (frame.body.ops as { path: string }[])[0]?.path ?? "";

  try {
    await open((bytes) => {
      const frame = readFrame(bytes);
      if (frame.header.t !== "#commit") return;
      order.push(keyOf.has(frame.body.repo as string) ? pathOf(frame) : undefined);
      verifying = verifying.then(async () => {
        const didKey = keyOf.get(frame.body.repo as string);
        if (!didKey) return; // another member's commit: not one of the bench's
        await verifyCommitEvent(frame.body, didKey);
        if (started.has(pathOf(frame)) && ++verified === target) allVerified();
      }).catch((error) => {
        rejected = error;
        allVerified();
      });
    });
    // the consumer's count of #commit frames when each subscriber was live: how many frames it may miss
    // at most (no write of the bench's is sent until all are live)
    const firstSeen = new Map<number[], number>();
    for (let i = 0; i < plan.subscribers; i++) {
      const arrived: number[] = [];
      arrivals.push(arrived);
      await open((bytes) => {
        const header = decodeAll(bytes).next().value as { t?: string };
        if (header.t === "#commit") arrived.push(performance.now());
      });
      firstSeen.set(arrived, order.length);
    }
    /** Each subscriber's delivery time of every frame of these writes (paths), once all have arrived. */
    const deliveredOf = async (paths: Set<string>, waitMs: number) => {
      // Once no frame is still arriving, every stream ends at the same frame, so a subscriber's frames are
      // the consumer's last ones. A subscriber short by more than the frames the consumer had before it
      // joined (give or take one then in flight) would be matched to the wrong writes: that fails the run.
      const sizes = () => [order.length, ...arrivals.map((a) => a.length)].join();
      const deadline = performance.now() + waitMs;
      let last = "";
      while (performance.now() < deadline) {
        const now = sizes();
        if (now === last && arrivals.every((a) => a.length <= order.length)) break;
        last = now;
        await new Promise((r) => setTimeout(r, 100));
      }
      const times: number[] = [];
      for (const arrived of arrivals) {
        const offset = order.length - arrived.length; // the consumer's frames from before this subscriber
        if (offset < 0 || offset > firstSeen.get(arrived)! + 1) {
          throw new Error(`a subscriber's #commit frames and the consumer's disagree (${arrived.length} against ${order.length})`);
        }
        for (const [i, at] of arrived.entries()) {
          const path = order[offset + i];
          if (path !== undefined && paths.has(path)) times.push(at - started.get(path)!);
        }
      }
      return times;
    };
    await new Promise((r) => setTimeout(r, 300)); // every subscriber is live

    let next = 0;
    let sent = 0;
    let phase = new Set<string>(); // the paths written in the phase under way
    const post = ({ did, agent }: (typeof agents)[number]) => {
      const rkey = `3${crypto.randomUUID().replace(/[^a-z2-7]/g, "").padEnd(12, "a").slice(0, 12)}`;
      started.set(`app.bsky.feed.post/${rkey}`, performance.now());
      phase.add(`app.bsky.feed.post/${rkey}`);
      return agent.com.atproto.repo.createRecord({
        repo: did,
        collection: "app.bsky.feed.post",
        rkey,
        record: { $type: "app.bsky.feed.post", text: `bench ${++sent}`, createdAt: new Date().toISOString() },
      });
    };
    /** Resolves once the consumer has verified what `expect` asked for; throws past the plan's patience. */
    const allVerifiedInTime = async () => {
      let patience: ReturnType<typeof setTimeout> | undefined;
      await Promise.race([
        done,
        new Promise((_, reject) => (patience = setTimeout(() => reject(new Error("the consumer fell behind")), plan.patienceMs))),
      ]).finally(() => clearTimeout(patience)); // a pending timer would hold the worker open for its whole span
      if (rejected) throw rejected;
    };
    /** `commits` sent by every writer at once, as fast as each is answered; resolves once all are verified */
    const burst = async (commits: number) => {
      expect(commits);
      next = 0;
      await Promise.all(agents.map(async (writer) => {
        while (next < commits) {
          next++;
          await post(writer);
        }
      }));
      const writtenAt = performance.now();
      await allVerifiedInTime();
      return writtenAt;
    };
    if (plan.warmupCommits > 0) await burst(plan.warmupCommits);
    phase = new Set();
    const t0 = performance.now();
    const writtenMs = (await burst(plan.commits)) - t0;
    const totalMs = performance.now() - t0;
    const saturated = await deliveredOf(phase, 10_000);

    // Latency at a steady rate below the ceiling: at full speed a frame's wait is mostly the writes queued
    // ahead of it, which says how busy the server is rather than how fast the stream is.
    phase = new Set();
    expect(plan.pacedCommits);
    const sends: Promise<unknown>[] = [];
    for (let i = 0; i < plan.pacedCommits; i++) {
      sends.push(post(agents[i % agents.length]));
      await new Promise((r) => setTimeout(r, 1000 / plan.pacedRate));
    }
    await Promise.all(sends);
    if (plan.pacedCommits > 0) await allVerifiedInTime();
    const pacedDelivered = await deliveredOf(phase, 10_000);
    if (rejected) throw rejected;
    return { ok: true, writtenMs, totalMs, delivered: saturated, pacedDelivered, verified };
  } finally {
    for (const socket of sockets) socket.close();
  }
}

(self as unknown as Worker).onmessage = async (e: MessageEvent<FederationPlan>) => {
  let outcome: FederationOutcome;
  try {
    outcome = await run(e.data);
  } catch (error) {
    outcome = { ok: false, error: error instanceof Error ? error.message : String(error) };
  }
  (self as unknown as Worker).postMessage(outcome);
};
