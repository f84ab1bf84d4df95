// SQL tests run each case in a transaction that is rolled back, acting as anon, as signed-in people
// (authenticated + JWT claims) or as the service role with `set local role`, so the policies and
// grants decide, exactly as they do for the functions' "as the reader" queries.
import assert from "node:assert/strict";
import { connect, type Sql, type Tx } from "../../shared/db.ts";
import { startEmbeddedPostgres } from "../../shared/embedded.ts";
import { migrate } from "../../shared/migrate.ts";
import { testSql } from "../helpers/db.ts";

let pool: Promise<Sql> | undefined;

/** The runner's database (DATABASE_URL), or an in-memory PGlite migrated for this file. */
export function database(): Promise<Sql> {
  pool ??= (async () => {
    if (Deno.env.get("DATABASE_URL")) return testSql();
    const embedded = await startEmbeddedPostgres();
    const sql = connect(embedded.url, { max: 4 });
    await migrate(sql);
    return sql;
  })();
  return pool;
}

const ROLLBACK = Symbol("rollback");

/** Runs fn in a transaction that is always rolled back (on `on`, else the file's database()). */
export async function rolledBack(fn: (tx: Tx) => Promise<void>, on?: Sql): Promise<void> {
  const sql = on ?? await database();
  try {
    await sql.begin(async (tx) => {
      await fn(tx);
      throw ROLLBACK;
    });
  } catch (error) {
    if (error !== ROLLBACK) throw error;
  }
}

export type Who = "anon" | "service_role" | { sub: string };

/** Runs fn as `who` inside a savepoint that is rolled back afterwards; answers fn's result. */
export async function as<T>(tx: Tx, who: Who, fn: (q: Tx) => Promise<T>): Promise<T> {
  let result: T | undefined;
  const role = typeof who === "string" ? who : "authenticated";
  const claims = typeof who === "string" ? { role } : { sub: who.sub, role: "authenticated" };
  try {
    await tx.savepoint(async (sp) => {
      await sp`select set_config('request.jwt.claims', ${JSON.stringify(claims)}, true)`;
      await sp.unsafe(`set local role ${role}`);
      result = await fn(sp as unknown as Tx);
      throw ROLLBACK;
    });
  } catch (error) {
    if (error !== ROLLBACK) throw error;
  }
  return result as T;
}

/** Asserts the statement fails (permission denied unless told otherwise) without ending the transaction. */
export async function refused(
  q: Tx,
  statement: (q: Tx) => Promise<unknown>,
  pattern = /permission denied/,
): Promise<void> {
  await assert.rejects(
    q.savepoint((sp) => statement(sp as unknown as Tx)),
    (error: Error) => {
      assert.match(error.message, pattern);
      return true;
    },
  );
}

export interface People {
  admin: { sub: string };
  support: { sub: string };
  member: { sub: string };
  /** Signed in, but with no profile row yet. */
  newcomer: { sub: string };
}

/** Creates auth users and profiles for an administrator, a support person and a member. */
export async function makePeople(tx: Tx): Promise<People> {
  const tag = crypto.randomUUID().slice(0, 8);
  const make = async (role: string | null) => {
    const [{ id }] = await tx<{ id: string }[]>`
      insert into auth.users (email) values (${`${role ?? "new"}-${tag}@people.test`}) returning id`;
    if (role) {
      await tx`insert into public.profiles (id, email, display_name, role)
               values (${id}, ${`${role}-${tag}@people.test`}, ${role}, ${role})`;
    }
    return { sub: id };
  };
  return {
    admin: await make("admin"),
    support: await make("support"),
    member: await make("member"),
    newcomer: await make(null),
  };
}

export function ids(rows: { id: string | number }[]): (string | number)[] {
  return rows.map((r) => r.id).sort();
}
