// What every function is given: built once at start (deploy entry or the local host), passed in.
import type { Clock } from "./clock.ts";
import { systemClock } from "./clock.ts";
import type { RuntimeConfig } from "./config.ts";
import { connect, type Sql } from "./db.ts";
import { databaseSecrets, type Secrets } from "./secrets.ts";
import { databaseStorage, type Storage, supabaseStorage } from "./storage.ts";

export interface FunctionContext {
  sql: Sql;
  config: RuntimeConfig;
  clock: Clock;
  storage: Storage;
  secrets: Secrets;
}

export function createContext(
  config: RuntimeConfig,
  options: { sql?: Sql; clock?: Clock; storage?: Storage } = {},
): FunctionContext {
  const sql = options.sql ?? connect(requireDatabaseUrl(config));
  const storage = options.storage ??
    (config.supabaseUrl && config.supabaseServiceRoleKey
      ? supabaseStorage(config.supabaseUrl, config.supabaseServiceRoleKey)
      : databaseStorage(sql));
  return {
    sql,
    config,
    clock: options.clock ?? systemClock,
    storage,
    secrets: databaseSecrets(sql, { jwt: config.jwtSecret, forms_webhook: config.formsWebhookSecret }),
  };
}

function requireDatabaseUrl(config: RuntimeConfig): string {
  if (!config.databaseUrl) throw new Error("DATABASE_URL (or SUPABASE_DB_URL) is not set");
  return config.databaseUrl;
}
