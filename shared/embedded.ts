// The embedded default: PGlite (Postgres compiled to WASM) inside this process, served on a loopback
// Postgres socket so the same `postgres` driver, psql and the CLI tasks all reach it.
import { PGlite } from "@electric-sql/pglite";
// btree_gist backs the scheduling exclusion constraint (host equality + time overlap in one index)
import { btree_gist } from "@electric-sql/pglite/contrib/btree_gist";
import { PGLiteSocketServer } from "@electric-sql/pglite-socket";

export interface EmbeddedPostgres {
  url: string;
  port: number;
  stop(): Promise<void>;
}

/** dataDir undefined keeps the database in memory (tests); a path persists it (the dev host). */
export async function startEmbeddedPostgres(
  options: { dataDir?: string; port?: number; host?: string } = {},
): Promise<EmbeddedPostgres> {
  if (options.dataDir) await Deno.mkdir(options.dataDir, { recursive: true });
  const db = await PGlite.create({ ...(options.dataDir ? { dataDir: options.dataDir } : {}), extensions: { btree_gist } });
  const host = options.host ?? "127.0.0.1";
  const port = options.port ?? await freePort(host);
  const server = new PGLiteSocketServer({ db, port, host, maxConnections: 64 } as ConstructorParameters<
    typeof PGLiteSocketServer
  >[0]);
  keepExchangesTogether(server);
  await server.start();
  return {
    url: `postgres://postgres@${host}:${port}/postgres`,
    port,
    async stop() {
      await server.stop();
      await db.close();
    },
  };
}

export function freePort(hostname = "127.0.0.1"): number {
  const listener = Deno.listen({ hostname, port: 0 });
  const { port } = listener.addr as Deno.NetAddr;
  listener.close();
  return port;
}

/**
 * pglite-socket (0.2.x) queues each protocol message on its own, so when several connections talk at
 * once one connection's Parse/Bind/Execute can land between another's and fail with `portal "" does
 * not exist` or answer with the wrong rows (upstream electric-sql/pglite#1046). This keeps a
 * connection's messages together until its exchange ends (Sync, simple Query or Terminate); an open
 * transaction already keeps the backend to its connection. It replaces the queue's processing loop,
 * so the pinned package version matters: re-check it when upgrading @electric-sql/pglite-socket.
 */
function keepExchangesTogether(server: PGLiteSocketServer): void {
  // deno-lint-ignore no-explicit-any
  const queue = (server as any).queryQueue;
  if (!queue || typeof queue.processQueue !== "function" || typeof queue.clearQueueForHandler !== "function") {
    throw new Error("@electric-sql/pglite-socket changed its internals: re-check keepExchangesTogether()");
  }
  const EXCHANGE_ENDS = new Set([0x53 /* Sync */, 0x51 /* Query */, 0x58 /* Terminate */]);
  let pinned: number | null = null;
  // deno-lint-ignore no-explicit-any
  queue.processQueue = async function (this: any) {
    if (this.processing || this.queue.length === 0) return;
    this.processing = true;
    try {
      while (this.queue.length > 0) {
        const owner = pinned ?? (this.db.isInTransaction() ? this.lastHandlerId : null);
        // deno-lint-ignore no-explicit-any
        let item: any;
        if (owner !== null && owner !== undefined) {
          // deno-lint-ignore no-explicit-any
          const index = this.queue.findIndex((q: any) => q.handlerId === owner);
          if (index === -1) break; // the owner's next message has not arrived yet
          item = this.queue.splice(index, 1)[0];
        } else {
          item = this.queue.shift();
        }
        const type = item.message[0];
        try {
          await this.db.runExclusive(() =>
            this.db.execProtocolRawStream(item.message, { onRawData: (data: Uint8Array) => item.onData(data) })
          );
        } catch (error) {
          pinned = null;
          item.reject(error);
          continue;
        }
        this.lastHandlerId = item.handlerId;
        // a startup message (type byte 0) or the end of an exchange frees the backend for others
        pinned = type === 0 || EXCHANGE_ENDS.has(type) ? null : item.handlerId;
        item.resolve(0);
      }
    } finally {
      this.processing = false;
    }
  };
  const clear = queue.clearQueueForHandler.bind(queue);
  queue.clearQueueForHandler = (id: number) => {
    if (pinned === id) pinned = null;
    clear(id);
    queueMicrotask(() => queue.processQueue());
  };
}
