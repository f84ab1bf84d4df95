// Shared by the webhook tests: a migrated database (the runner's DATABASE_URL when set, else an
// in-memory PGlite for this file) and a loopback HTTP receiver that records what it gets.
import { connect, type Sql } from "../../../shared/db.ts";
import { startEmbeddedPostgres } from "../../../shared/embedded.ts";
import { migrate } from "../../../shared/migrate.ts";

let database: Promise<{ url: string }> | undefined;

/** The URL of a migrated database: the runner's, or one embedded PGlite shared by this test file. */
export function databaseUrl(): Promise<{ url: string }> {
  database ??= (async () => {
    const url = Deno.env.get("DATABASE_URL");
    if (url) return { url };
    const embedded = await startEmbeddedPostgres();
    const sql = connect(embedded.url, { max: 1 });
    await migrate(sql);
    await sql.end();
    return { url: embedded.url };
  })();
  return database;
}

/** A fresh pool on the test database; the test ends it. */
export async function pool(max = 4): Promise<Sql> {
  return connect((await databaseUrl()).url, { max });
}

/** A unique API name so rows never collide with other tests sharing the database. */
export function uniqueApi(): string {
  return `test-${crypto.randomUUID().slice(0, 8)}`;
}

export interface Receipt {
  path: string;
  headers: Headers;
  body: string;
  at: number;
}

export type Reply = "ok" | "500" | "hang";

export interface Receiver {
  url: string;
  port: number;
  receipts: Receipt[];
  /** What the next requests get; a function decides per request. */
  reply: Reply | ((n: number) => Reply);
  waitFor(count: number, timeoutMs?: number): Promise<void>;
  close(): Promise<void>;
}

export function startReceiver(): Receiver {
  const release = Promise.withResolvers<void>();
  const waiters: { count: number; resolve: () => void }[] = [];
  const receiver: Receiver = {
    url: "",
    port: 0,
    receipts: [],
    reply: "ok",
    waitFor(count, timeoutMs = 5000) {
      if (receiver.receipts.length >= count) return Promise.resolve();
      return new Promise((resolve, reject) => {
        const timer = setTimeout(
          () => reject(new Error(`expected ${count} receipts, got ${receiver.receipts.length}`)),
          timeoutMs,
        );
        waiters.push({ count, resolve: () => (clearTimeout(timer), resolve()) });
      });
    },
    async close() {
      release.resolve();
      await server.shutdown();
    },
  };
  const server = Deno.serve({ hostname: "127.0.0.1", port: 0, onListen() {} }, async (request) => {
    const body = await request.text();
    const n = receiver.receipts.length;
    receiver.receipts.push({
      path: new URL(request.url).pathname,
      headers: request.headers,
      body,
      at: performance.now(),
    });
    for (const w of waiters.splice(0)) {
      if (receiver.receipts.length >= w.count) w.resolve();
      else waiters.push(w);
    }
    const reply = typeof receiver.reply === "function" ? receiver.reply(n) : receiver.reply;
    if (reply === "hang") {
      await release.promise;
      return new Response("late", { status: 200 });
    }
    return new Response(reply === "500" ? "boom" : "ok", { status: reply === "500" ? 500 : 200 });
  });
  receiver.port = server.addr.port;
  receiver.url = `http://127.0.0.1:${server.addr.port}`;
  return receiver;
}

/**
 * True on the embedded PGlite: its socket shares one backend between connections and hands a NOTIFY
 * to the connection that committed it, so a LISTEN on another connection never hears it.
 */
export async function onPGlite(): Promise<boolean> {
  const sql = await pool(1);
  try {
    const [{ version }] = await sql<{ version: string }[]>`select version()`;
    return version.includes("PGlite");
  } finally {
    await sql.end();
  }
}
