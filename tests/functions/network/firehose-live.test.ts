// The firehose serves a commit made in its own instance from the writer's bytes: the writer hands its
// events in before it commits (expect), the database's notification names each event's number, kind and
// body hash (migration network_seq_notify_body), and the event right after the ring's last is framed
// without reading the stream's table. Anything it cannot be sure of (a gap, an event it was not handed, a
// notification naming no body, no notifications at all, a notification that does not come) reads the table.
// A hub over a stand-in database that counts its reads of the stream, and a stand-in socket.
import assert from "node:assert/strict";
import { test } from "../../helpers/test.ts";
import { eventKey, Firehose, readNotification } from "../../../functions/network/federation/firehose.ts";
import { identityEventBody, messageFrame } from "../../../functions/network/federation/events.ts";

interface Row {
  seq: number;
  did: string;
  kind: "commit" | "identity" | "account" | "sync";
  body: Uint8Array;
  created_at: Date;
}

function standIn(rows: Row[]) {
  const db = {
    reads: 0,
    notify: undefined as ((payload: string) => void) | undefined,
  };
  const sql = (strings: TemplateStringsArray, ...values: unknown[]) => {
    const text = strings.join("?");
    if (text.includes("max(seq)")) {
      return Promise.resolve([{ seq: String(rows.reduce((m, r) => Math.max(m, r.seq), 0)) }]);
    }
    if (text.includes("where seq >")) {
      db.reads++;
      const [after, limit] = values as [number, number];
      return Promise.resolve(
        rows.filter((r) => r.seq > after).sort((a, b) => a.seq - b.seq).slice(0, limit).map((r) => ({ ...r, seq: String(r.seq) })),
      );
    }
    return Promise.resolve([]); // the subscriber's own row
  };
  sql.listen = (_channel: string, onNotify: (payload: string) => void) => {
    db.notify = onNotify;
    return Promise.resolve({ unlisten: () => Promise.resolve() });
  };
  return { db, ctx: { sql } as never };
}

function socket() {
  const listeners = new Map<string, () => void>();
  const sent: Uint8Array[] = [];
  return {
    sent,
    readyState: WebSocket.OPEN,
    bufferedAmount: 0,
    addEventListener(type: string, fn: () => void) {
      listeners.set(type, fn);
    },
    send(frame: Uint8Array) {
      sent.push(frame);
    },
    close() {
      listeners.get("close")?.();
    },
  };
}

const settle = () => new Promise((r) => setTimeout(r, 20));
const event = (seq: number, handle: string): Row => ({
  seq,
  did: "did:plc:live",
  kind: "identity",
  body: identityEventBody("did:plc:live", handle, new Date("2026-11-26T00:00:00Z")),
  created_at: new Date(),
});
const hashOf = (row: Row) => eventKey(row.kind, row.body).split(" ")[1];

async function subscribed(rows: Row[]) {
  const { db, ctx } = standIn(rows);
  const hub = new Firehose(ctx, 1 << 20, 24 * 3600_000);
  const ws = socket();
  const serving = hub.serve(ws as unknown as WebSocket, undefined, "127.0.0.1");
  while (!db.notify) await settle();
  await settle();
  return { db, hub, ws, serving };
}

test("a notification reads as its number, kind and body hash; a bare number (an older trigger) names no body", () => {
  assert.deepEqual(readNotification("42 commit abcd"), { seq: 42, key: "commit abcd" });
  assert.deepEqual(readNotification("42"), { seq: 42, key: undefined });
  assert.equal(readNotification("x commit abcd"), undefined);
  assert.equal(readNotification(""), undefined);
});

test("a commit made here reaches the subscriber framed from the writer's bytes, numbered by its notification, without a read of the table", async () => {
  const rows = [event(1, "a.test")];
  const { db, hub, ws, serving } = await subscribed(rows);
  try {
    const next = event(2, "b.test");
    const key = hub.expect(next.kind, next.body);
    assert.ok(key);
    rows.push(next); // committed
    const reads = db.reads;
    db.notify!(`2 ${next.kind} ${hashOf(next)}`);
    hub.committed([key]);
    await settle();
    assert.equal(db.reads, reads, "the stream's table was not read");
    assert.deepEqual(ws.sent.at(-1), messageFrame(next.kind, 2, next.body));
  } finally {
    ws.close();
    await serving;
  }
});

test("after a gap, for another instance's event, or a notification naming no body, the table is read and gives every event in order", async () => {
  const rows = [event(1, "a.test")];
  const { db, hub, ws, serving } = await subscribed(rows);
  try {
    // the writer's event is 3, but 2 (another instance's) has not been seen here
    const other = event(2, "other.test");
    const ours = event(3, "ours.test");
    const key = hub.expect(ours.kind, ours.body)!;
    rows.push(other, ours);
    const reads = db.reads;
    db.notify!(`3 ${ours.kind} ${hashOf(ours)}`);
    db.notify!(`2 ${other.kind} ${hashOf(other)}`);
    hub.committed([key]);
    await settle();
    assert.ok(db.reads > reads, "the table was read");
    assert.deepEqual(ws.sent.slice(-2), [messageFrame(other.kind, 2, other.body), messageFrame(ours.kind, 3, ours.body)]);
    const bare = event(4, "bare.test");
    rows.push(bare);
    const before = db.reads;
    db.notify!("4");
    await settle();
    assert.ok(db.reads > before, "a bare number is read from the table");
    assert.deepEqual(ws.sent.at(-1), messageFrame(bare.kind, 4, bare.body));
    assert.equal(ws.sent.length, 3, "each event once");
  } finally {
    ws.close();
    await serving;
  }
});

test("while no notification is heard (the embedded database), a commit made here reads the table at once", async () => {
  const rows = [event(1, "a.test")];
  const { db, hub, ws, serving } = await subscribed(rows);
  try {
    const next = event(2, "b.test");
    const key = hub.expect(next.kind, next.body)!;
    rows.push(next);
    const reads = db.reads;
    hub.committed([key]);
    await settle();
    assert.ok(db.reads > reads);
    assert.deepEqual(ws.sent.at(-1), messageFrame(next.kind, 2, next.body));
  } finally {
    ws.close();
    await serving;
  }
});

test("a commit made here whose notification does not come is read from the table after a short wait", async () => {
  const rows = [event(1, "a.test")];
  const { db, hub, ws, serving } = await subscribed(rows);
  try {
    const first = event(2, "b.test");
    rows.push(first);
    db.notify!(`2 ${first.kind} ${hashOf(first)}`); // notifications are heard (another instance's event)
    await settle();
    const lost = event(3, "c.test");
    const key = hub.expect(lost.kind, lost.body)!;
    rows.push(lost);
    const reads = db.reads;
    hub.committed([key]);
    await settle();
    assert.equal(db.reads, reads, "waiting for its notification first");
    await new Promise((r) => setTimeout(r, 400));
    assert.ok(db.reads > reads, "then the table is read");
    assert.deepEqual(ws.sent.at(-1), messageFrame(lost.kind, 3, lost.body));
  } finally {
    ws.close();
    await serving;
  }
});
