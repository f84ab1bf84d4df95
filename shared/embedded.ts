// The embedded default: PGlite (Postgres compiled to WASM) inside this process, served on a loopback
// Postgres socket so the same `postgres` driver, psql and the CLI tasks all reach it.
import { PGlite } from "@electric-sql/pglite";
// btree_gist backs the scheduling exclusion constraint (host equality + time overlap in one index)
import { btree_gist } from "@electric-sql/pglite/contrib/btree_gist";
// btree_gin puts a form's slug beside its responses' search terms in one GIN index
import { btree_gin } from "@electric-sql/pglite/contrib/btree_gin";
import { PGLiteSocketServer } from "@electric-sql/pglite-socket";
import { sharedStatements } from "./embedded-statements.ts";
import { runProjectModule } from "./project-process.ts";
import { concatBytes } from "./bytes.ts";

export interface EmbeddedPostgres {
  url: string;
  port: number;
  stop(): Promise<void>;
}

/**
 * The shared buffers of an on-disk database. PGlite's default (128 MB, the server's) is most of the
 * dev host's resident size, for a site whose whole database is smaller than that; its pages are read
 * from the data directory (the system's page cache) when they are not held, and PGlite's WASM memory
 * never shrinks once its buffers have been touched. 16 MB (was 32): 16 MB less of it held for good.
 * An in-memory database (tests, the bench) keeps the default: its files are memory already.
 */
const ON_DISK_SHARED_BUFFERS = "16MB";

/**
 * Runs initdb for a new data directory in a Deno process of its own (shared/embedded-init.ts), whose
 * memory is given back when it exits, with this project's configuration (its npm packages) and write
 * access to that directory only.
 */
async function initializeDataDir(dataDir: string): Promise<void> {
  if (await Deno.stat(`${dataDir}/PG_VERSION`).then(() => true, () => false)) return;
  const { code, stderr } = await runProjectModule(new URL("./embedded-init.ts", import.meta.url), [dataDir], {
    permissions: ["--allow-read", `--allow-write=${dataDir}`, "--allow-env"],
    env: { NO_COLOR: "1" },
    stdout: "null",
    stderr: "piped",
  });
  if (code !== 0) {
    const message = new TextDecoder().decode(stderr).trim().split("\n").slice(-5).join("\n");
    throw new Error(`could not make the database in ${dataDir}: ${message}`);
  }
}

/** dataDir undefined keeps the database in memory (tests); a path persists it (the dev host). */
export async function startEmbeddedPostgres(
  options: { dataDir?: string; port?: number; host?: string } = {},
): Promise<EmbeddedPostgres> {
  if (options.dataDir) {
    await Deno.mkdir(options.dataDir, { recursive: true });
    await initializeDataDir(options.dataDir);
  }
  const db = await PGlite.create({
    ...(options.dataDir ? { dataDir: options.dataDir, postgresqlconf: `shared_buffers = ${ON_DISK_SHARED_BUFFERS}` } : {}),
    extensions: { btree_gist, btree_gin },
  });
  const host = options.host ?? "127.0.0.1";
  const port = options.port ?? await freePort(host);
  const server = new PGLiteSocketServer({ db, port, host, maxConnections: 64 } as ConstructorParameters<
    typeof PGLiteSocketServer
  >[0]);
  const notices = relayNotifications(server, db);
  keepExchangesTogether(server, notices);
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
 *
 * The one backend also holds every connection's named prepared statements: a statement whose text the
 * backend already holds is shared (shared/embedded-statements.ts), and a server would drop a connection's
 * own when it closes; PGlite never learns that a socket closed, so this does it: the statements no live
 * connection uses any more are deallocated once the backend is free after the connection is gone.
 * Without it every reconnection of a pool (the driver closes idle connections and recycles old ones)
 * left a copy of each statement it had run in PGlite's memory for good.
 */
function keepExchangesTogether(server: PGLiteSocketServer, notices: NotificationRelay): void {
  // deno-lint-ignore no-explicit-any
  const queue = (server as any).queryQueue;
  if (!queue || typeof queue.processQueue !== "function" || typeof queue.clearQueueForHandler !== "function") {
    throw new Error("@electric-sql/pglite-socket changed its internals: re-check keepExchangesTogether()");
  }
  const EXCHANGE_ENDS = new Set([0x53 /* Sync */, 0x51 /* Query */, 0x58 /* Terminate */]);
  let pinned: number | null = null;
  const statements = sharedStatements();
  const orphaned: string[] = []; // statements no connection uses, deallocated once the backend is free
  // deno-lint-ignore no-explicit-any
  const release = async (db: any) => {
    // deno-lint-ignore no-explicit-any
    if (!(server as any).active) orphaned.length = 0; // stopping: the database is closing with them
    if (!orphaned.length || pinned !== null || db.isInTransaction()) return;
    for (const name of orphaned.splice(0)) {
      await db.exec(`deallocate "${name.replaceAll('"', '""')}"`).catch(() => {}); // never made: nothing to drop
    }
  };
  // deno-lint-ignore no-explicit-any
  queue.processQueue = async function (this: any) {
    if (this.processing || (this.queue.length === 0 && orphaned.length === 0)) return;
    this.processing = true;
    try {
      if (orphaned.length) await release(this.db);
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
        const route = statements.route(item.handlerId, item.message);
        const exchange = notices.exchange(item.handlerId, item.message);
        try {
          if ("answer" in route) {
            item.onData(route.answer);
            exchange.output(route.answer);
          } else {
            await this.db.runExclusive(() =>
              this.db.execProtocolRawStream(route.send, {
                onRawData: (data: Uint8Array) => {
                  item.onData(data);
                  exchange.output(data);
                  statements.answered(item.handlerId, route.send, data);
                },
              })
            );
          }
        } catch (error) {
          pinned = null;
          item.reject(error);
          continue;
        }
        await exchange.done();
        if (type === 0x53 /* Sync */ || type === 0x51 /* Query */) statements.exchangeEnded(item.handlerId);
        this.lastHandlerId = item.handlerId;
        // a startup message (type byte 0) or the end of an exchange frees the backend for others
        pinned = type === 0 || EXCHANGE_ENDS.has(type) ? null : item.handlerId;
        item.resolve(0);
        if (orphaned.length) await release(this.db);
      }
    } finally {
      this.processing = false;
    }
  };
  const clear = queue.clearQueueForHandler.bind(queue);
  queue.clearQueueForHandler = (id: number) => {
    if (pinned === id) pinned = null;
    orphaned.push(...statements.closed(id));
    notices.forget(id);
    clear(id);
    queueMicrotask(() => queue.processQueue());
  };
}

interface NotificationRelay {
  /** Watches one protocol message of a connection and what the backend answers to it. */
  exchange(handlerId: number, message: Uint8Array): { output(data: Uint8Array): void; done(): Promise<void> };
  /** The connection is gone. */
  forget(handlerId: number): void;
}

const LISTEN_STATEMENT = /^\s*(un)?listen\s+("(?:[^"]|"")*"|[^\s;]+)/i;

/**
 * Every connection of the socket shares PGlite's one backend, so the backend hands a NOTIFY's
 * NotificationResponse to the connection whose exchange committed it, never to the connection that ran
 * LISTEN, as a Postgres server would. This forwards each NotificationResponse to the other connections
 * that LISTEN on its channel (whole messages, between their own exchanges, as a server sends them
 * asynchronously), and keeps the shared backend listening while any connection still wants a channel
 * another one has UNLISTENed.
 */
function relayNotifications(server: PGLiteSocketServer, db: PGlite): NotificationRelay {
  const wanted = new Map<number, Set<string>>();
  // deno-lint-ignore no-explicit-any
  const handlers = (server as any).handlers as Set<{ handlerId: number; socket: { writable: boolean; write(b: Uint8Array): void } | null }>;
  if (!(handlers instanceof Set)) {
    throw new Error("@electric-sql/pglite-socket changed its internals: re-check relayNotifications()");
  }
  const decoder = new TextDecoder();

  function statementOf(message: Uint8Array): string | undefined {
    const type = message[0];
    if (type === 0x51 /* Query */) return decoder.decode(message.subarray(5, message.length - 1));
    if (type === 0x50 /* Parse */) {
      const nameEnd = message.indexOf(0, 5);
      if (nameEnd < 0) return undefined;
      const queryEnd = message.indexOf(0, nameEnd + 1);
      return decoder.decode(message.subarray(nameEnd + 1, queryEnd < 0 ? message.length : queryEnd));
    }
    return undefined;
  }

  function channelName(raw: string): string {
    return raw.startsWith('"') ? raw.slice(1, -1).replaceAll('""', '"') : raw.toLowerCase();
  }

  function forward(from: number, notification: Uint8Array): void {
    let index = 9; // type (1) + length (4) + sender pid (4), then the channel as a C string
    while (index < notification.length && notification[index] !== 0) index++;
    const channel = decoder.decode(notification.subarray(9, index));
    for (const handler of handlers) {
      if (handler.handlerId === from || !wanted.get(handler.handlerId)?.has(channel)) continue;
      if (handler.socket?.writable) handler.socket.write(notification);
    }
  }

  // LISTEN/UNLISTEN statements seen in a connection's exchange in flight (a Parse comes before its
  // Execute: the change holds once the exchange ends with Sync, or at once for a simple Query)
  const changes = new Map<number, RegExpExecArray[]>();

  async function apply(handlerId: number): Promise<void> {
    const seen = changes.get(handlerId);
    if (!seen) return;
    changes.delete(handlerId);
    const mine = wanted.get(handlerId) ?? new Set<string>();
    wanted.set(handlerId, mine);
    let dropped = false;
    for (const change of seen) {
      const channel = change[2] === "*" ? "*" : channelName(change[2]);
      if (!change[1]) mine.add(channel);
      else {
        dropped = true;
        if (channel === "*") mine.clear();
        else mine.delete(channel);
      }
    }
    if (!dropped || db.isInTransaction()) return;
    const stillWanted = new Set([...wanted.values()].flatMap((channels) => [...channels]));
    for (const name of stillWanted) await db.exec(`listen "${name.replaceAll('"', '""')}"`);
  }

  return {
    exchange(handlerId, message) {
      const statement = statementOf(message);
      const change = statement ? LISTEN_STATEMENT.exec(statement) : null;
      if (change) changes.set(handlerId, [...(changes.get(handlerId) ?? []), change]);
      const endsExchange = message[0] === 0x53 /* Sync */ || message[0] === 0x51 /* Query */;
      let pending = new Uint8Array(0);
      return {
        output(data) {
          // the backend's answer, cut into messages: type byte, then a length that counts itself
          let chunk = pending.length ? concatBytes([pending, data]) : data;
          while (chunk.length >= 5) {
            const length = 1 + new DataView(chunk.buffer, chunk.byteOffset + 1, 4).getInt32(0);
            if (chunk.length < length) break;
            if (chunk[0] === 0x41 /* NotificationResponse */) forward(handlerId, chunk.slice(0, length));
            chunk = chunk.subarray(length);
          }
          pending = chunk.slice();
        },
        async done() {
          if (endsExchange) await apply(handlerId);
        },
      };
    },
    forget(handlerId) {
      wanted.delete(handlerId);
      changes.delete(handlerId);
    },
  };
}
