// The embedded PGlite socket's named prepared statements, shared by its connections (shared/embedded.ts).
// Every connection talks to PGlite's one backend, and a driver prepares each statement once per
// connection: a pool of ten kept up to ten plans of the same text in PGlite's memory (measured after the
// bench's load on `task dev`: 503 statements of 116 texts, 23 MB of the backend's 36 MB of memory
// contexts, in WebAssembly memory that is never given back). Here a Parse of a text (with the same
// parameter types) that the backend already holds is answered ParseComplete without reaching it, and
// the connection's name for the statement is rewritten to the backend's in its Bind, Describe and Close.
// A backend statement lives while any connection's name points at it; then it is dropped, as a server
// drops a connection's statements when it closes. The backend is one session, so a statement parsed for
// one connection is the same statement for every other (search_path and all).

import { concatBytes } from "./bytes.ts";

const PARSE = 0x50, BIND = 0x42, DESCRIBE = 0x44, CLOSE = 0x43;
const STATEMENT = 0x53; // 'S': Describe and Close of a statement (not a portal)
const PARSE_COMPLETE = Uint8Array.of(0x31, 0, 0, 0, 4);
const CLOSE_COMPLETE = Uint8Array.of(0x33, 0, 0, 0, 4);
const EMPTY = new Uint8Array(0);
// the errors after which a driver prepares its statement again (postgres.js retries on these): the
// statement is gone, or its cached plan can no longer answer (a table it reads changed its columns)
const STATEMENT_BROKEN = new Set(["26000", "0A000"]);

/** How a connection's message reaches the backend: rewritten (or as it came), or answered here. */
export type Route = { send: Uint8Array } | { answer: Uint8Array };

export interface SharedStatements {
  /** The message to run for a connection, or the answer to give it without running anything. */
  route(connection: number, message: Uint8Array): Route;
  /** The backend's answer to a message that was sent (whole, or in chunks in order). */
  answered(connection: number, sent: Uint8Array, output: Uint8Array): void;
  /** The connection's exchange ended (Sync, simple Query): an error in it no longer skips its Parses. */
  exchangeEnded(connection: number): void;
  /** The connection is gone: the backend statements no connection uses any more, to deallocate. */
  closed(connection: number): string[];
  /** How many backend statements are shared (for tests). */
  readonly size: number;
}

interface Exchange {
  failed: boolean; // an ErrorResponse came: the backend skips the rest until Sync
  used: Set<string>; // backend statements this exchange ran
  pending: Uint8Array; // a message of the backend's answer cut between chunks
  parse?: { name: string; key: string }; // a Parse that was sent, waiting for its answer
}

export function sharedStatements(): SharedStatements {
  const byText = new Map<string, string>(); // text and parameter types → backend statement
  const textOf = new Map<string, string>(); // backend statement → its text and parameter types
  const users = new Map<string, number>(); // backend statement → connection names pointing at it
  const names = new Map<number, Map<string, string>>(); // connection → its names → backend statements
  const exchanges = new Map<number, Exchange>();
  const decoder = new TextDecoder();
  const encoder = new TextEncoder();

  const exchangeOf = (connection: number) => {
    let exchange = exchanges.get(connection);
    if (!exchange) exchanges.set(connection, exchange = { failed: false, used: new Set(), pending: EMPTY });
    return exchange;
  };
  const namesOf = (connection: number) => {
    let mine = names.get(connection);
    if (!mine) names.set(connection, mine = new Map());
    return mine;
  };
  /** A C string at `start`: its text and the index after its NUL. */
  const cString = (message: Uint8Array, start: number): [string, number] => {
    const end = message.indexOf(0, start);
    if (end < 0) return [decoder.decode(message.subarray(start)), message.length];
    return [decoder.decode(message.subarray(start, end)), end + 1];
  };
  /** The message with the C string at [start, end) replaced by `name`, its length recomputed. */
  const renamed = (message: Uint8Array, start: number, end: number, name: string): Uint8Array => {
    const bytes = encoder.encode(name);
    const out = new Uint8Array(message.length - (end - 1 - start) + bytes.length);
    out.set(message.subarray(0, start));
    out.set(bytes, start);
    out.set(message.subarray(end - 1), start + bytes.length);
    new DataView(out.buffer).setInt32(1, out.length - 1);
    return out;
  };
  /** One name of a connection no longer points at its backend statement; true when nothing else does. */
  const release = (statement: string): boolean => {
    const left = (users.get(statement) ?? 1) - 1;
    if (left > 0) {
      users.set(statement, left);
      return false;
    }
    users.delete(statement);
    const key = textOf.get(statement);
    textOf.delete(statement);
    if (key !== undefined && byText.get(key) === statement) byText.delete(key);
    return true;
  };
  const forget = (statement: string) => {
    const key = textOf.get(statement);
    if (key !== undefined && byText.get(key) === statement) byText.delete(key);
  };

  return {
    route(connection, message) {
      const type = message[0];
      if (type === PARSE) {
        const [name, textStart] = cString(message, 5);
        if (!name) return { send: message }; // the unnamed statement goes with the next Parse
        const exchange = exchangeOf(connection);
        const mine = namesOf(connection);
        // a name this connection already has: the backend answers (an error, as a server would)
        const existing = mine.get(name);
        if (existing !== undefined) return { send: renamed(message, 5, textStart, existing) };
        if (exchange.failed) return { send: message }; // the backend skips it until Sync
        // the text and parameter types, as bytes: the same statement only if they are the same
        const [text, typesStart] = cString(message, textStart);
        const key = `${message.subarray(typesStart).join(",")}\0${text}`;
        const statement = byText.get(key);
        if (statement === undefined) {
          exchange.parse = { name, key };
          return { send: message };
        }
        mine.set(name, statement);
        users.set(statement, (users.get(statement) ?? 0) + 1);
        return { answer: PARSE_COMPLETE };
      }
      if (type === BIND) {
        const [, statementStart] = cString(message, 5); // the portal's name, then the statement's
        const [name, after] = cString(message, statementStart);
        const statement = name ? names.get(connection)?.get(name) : undefined;
        if (statement === undefined) return { send: message };
        exchangeOf(connection).used.add(statement);
        return { send: statement === name ? message : renamed(message, statementStart, after, statement) };
      }
      if ((type === DESCRIBE || type === CLOSE) && message[5] === STATEMENT) {
        const [name, after] = cString(message, 6);
        const mine = names.get(connection);
        const statement = name ? mine?.get(name) : undefined;
        if (statement === undefined) return { send: message };
        if (type === DESCRIBE) {
          exchangeOf(connection).used.add(statement);
          return { send: statement === name ? message : renamed(message, 6, after, statement) };
        }
        if (exchanges.get(connection)?.failed) return { send: message }; // the backend skips it until Sync
        mine!.delete(name);
        if (!release(statement)) return { answer: CLOSE_COMPLETE };
        return { send: statement === name ? message : renamed(message, 6, after, statement) };
      }
      return { send: message };
    },

    answered(connection, sent, output) {
      const exchange = exchangeOf(connection);
      // the answer, cut into messages (a type byte, then a length that counts itself); only an
      // ErrorResponse and a Parse's ParseComplete matter here
      const chunk = exchange.pending.length ? concatBytes([exchange.pending, output]) : output;
      const view = new DataView(chunk.buffer, chunk.byteOffset, chunk.length);
      let at = 0;
      while (chunk.length - at >= 5) {
        const end = at + 1 + view.getInt32(at + 1);
        if (end > chunk.length) break;
        if (chunk[at] === 0x31 /* ParseComplete */ && exchange.parse && sent[0] === PARSE) {
          const { name, key } = exchange.parse;
          exchange.parse = undefined;
          byText.set(key, name);
          textOf.set(name, key);
          users.set(name, 1);
          namesOf(connection).set(name, name);
        } else if (chunk[at] === 0x45 /* ErrorResponse */) {
          exchange.failed = true;
          exchange.parse = undefined;
          if (STATEMENT_BROKEN.has(errorCode(chunk.subarray(at + 5, end)))) {
            for (const s of exchange.used) forget(s);
          }
        }
        at = end;
      }
      exchange.pending = at < chunk.length ? chunk.slice(at) : EMPTY;
    },

    exchangeEnded(connection) {
      exchanges.delete(connection);
    },

    closed(connection) {
      exchanges.delete(connection);
      const mine = names.get(connection);
      names.delete(connection);
      const unused: string[] = [];
      for (const statement of mine?.values() ?? []) if (release(statement)) unused.push(statement);
      return unused;
    },

    get size() {
      return textOf.size;
    },
  };
}

/** The SQLSTATE of an ErrorResponse's fields (a type byte, then a C string, each; 'C' is the code). */
function errorCode(fields: Uint8Array): string {
  let i = 0;
  while (i < fields.length && fields[i] !== 0) {
    const end = fields.indexOf(0, i + 1);
    if (end < 0) break;
    if (fields[i] === 0x43) return new TextDecoder().decode(fields.subarray(i + 1, end));
    i = end + 1;
  }
  return "";
}
