// Runtime configuration: read once from the environment, checked, with a clear message for what is wrong.
import assert from "node:assert/strict";
import { test } from "../helpers/test.ts";
import { ConfigError, readConfig } from "../../shared/config.ts";

const config = (env: Record<string, string>) => readConfig(new Map(Object.entries(env)));

test("PORT: a port number (default 8000), and the public and functions origins follow it", () => {
  assert.equal(config({}).port, 8000);
  assert.equal(config({}).publicUrl, "http://localhost:8000");
  const c = config({ PORT: "9100" });
  assert.deepEqual([c.port, c.publicUrl, c.functionsUrl], [
    9100,
    "http://localhost:9100",
    "http://localhost:9100",
  ]);
  assert.equal(
    config({ PUBLIC_URL: "https://site.example/", FUNCTIONS_URL: "https://fn.example//" }).functionsUrl,
    "https://fn.example",
  );
  for (const bad of ["http", "-1", "65536", "80.5"]) {
    assert.throws(
      () => config({ PORT: bad }),
      (e: Error) => e instanceof ConfigError && /PORT must be a port number/.test(e.message),
      bad,
    );
  }
});

test("SITE_MODE: git or cloud, or unset to follow the site's configuration", () => {
  assert.equal(config({}).siteModeOverride, undefined);
  assert.equal(config({ SITE_MODE: "git" }).siteModeOverride, "git");
  assert.equal(config({ SITE_MODE: "cloud" }).siteModeOverride, "cloud");
  assert.throws(
    () => config({ SITE_MODE: "paper" }),
    (e: Error) => e instanceof ConfigError && /SITE_MODE must be git or cloud/.test(e.message),
  );
});

test("the person JWT secret: JWT_SECRET, else SUPABASE_JWT_SECRET; the database URL: DATABASE_URL, else SUPABASE_DB_URL", () => {
  assert.equal(config({ SUPABASE_JWT_SECRET: "s" }).jwtSecret, "s");
  assert.equal(config({ SUPABASE_JWT_SECRET: "s", JWT_SECRET: "j" }).jwtSecret, "j");
  assert.equal(config({}).jwtSecret, undefined);
  assert.equal(config({ SUPABASE_DB_URL: "postgres://b" }).databaseUrl, "postgres://b");
  assert.equal(
    config({ SUPABASE_DB_URL: "postgres://b", DATABASE_URL: "postgres://a" }).databaseUrl,
    "postgres://a",
  );
});

test("RATE_LIMIT_SCALE: every API's rate-limit windows are multiplied by it; 1 unless set", () => {
  assert.equal(config({}).rateLimitScale, 1);
  assert.equal(config({ RATE_LIMIT_SCALE: "" }).rateLimitScale, 1);
  assert.equal(config({ RATE_LIMIT_SCALE: "1000" }).rateLimitScale, 1000);
  assert.equal(config({ RATE_LIMIT_SCALE: " 0.5 " }).rateLimitScale, 0.5);
  for (const bad of ["0", "-2", "many", "Infinity", "1e7"]) {
    assert.throws(
      () => config({ RATE_LIMIT_SCALE: bad }),
      (e: Error) => e instanceof ConfigError && /RATE_LIMIT_SCALE must be a number above 0/.test(e.message),
      bad,
    );
  }
});

test("NETWORK_FIREHOSE_BACKFILL_HOURS: how far back a firehose cursor is replayed; a day unless set", () => {
  assert.equal(config({}).networkFirehoseBackfillMs, 24 * 3_600_000);
  assert.equal(config({ NETWORK_FIREHOSE_BACKFILL_HOURS: " " }).networkFirehoseBackfillMs, 24 * 3_600_000);
  assert.equal(config({ NETWORK_FIREHOSE_BACKFILL_HOURS: "72" }).networkFirehoseBackfillMs, 72 * 3_600_000);
  assert.equal(config({ NETWORK_FIREHOSE_BACKFILL_HOURS: "0.5" }).networkFirehoseBackfillMs, 1_800_000);
  for (const bad of ["0", "-1", "a day", "Infinity"]) {
    assert.throws(
      () => config({ NETWORK_FIREHOSE_BACKFILL_HOURS: bad }),
      (e: Error) => e instanceof ConfigError && /NETWORK_FIREHOSE_BACKFILL_HOURS must be a number of hours above 0/.test(e.message),
      bad,
    );
  }
});
