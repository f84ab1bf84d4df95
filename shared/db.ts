// The one way code reaches Postgres: the `postgres` driver over a URL (a server, Supabase, or the
// embedded PGlite's loopback socket).
import postgres from "postgres";

// deno-lint-ignore ban-types
export type Sql = postgres.Sql<{}>;
// deno-lint-ignore ban-types
export type Tx = postgres.TransactionSql<{}>;
/** Either the pool or an open transaction; domain code accepts both so callers choose the boundary. */
export type Db = Sql | Tx;

export interface ConnectOptions {
  max?: number;
  /** Silence notices (migrations emit many "already exists, skipping"). */
  quiet?: boolean;
  /**
   * Seconds a connection may sit unused before the pool closes it (default 30): after a burst the pool
   * shrinks back to what the load needs instead of holding its maximum against the server's limit.
   */
  idleSeconds?: number;
}

export function connect(url: string, options: ConnectOptions = {}): Sql {
  return postgres(url, {
    max: options.max ?? 10,
    idle_timeout: options.idleSeconds ?? 30,
    onnotice: options.quiet === false ? undefined : () => {},
    // bigint columns (sequence numbers, counts) come back as JS numbers: every value we keep fits.
    types: {
      bigint: {
        to: 20,
        from: [20],
        serialize: (value: number | bigint) => String(value),
        parse: (value: string) => Number(value),
      },
    },
    connection: { application_name: "sitewire" },
  }) as unknown as Sql;
}
