// The pool gives connections back: after a burst, the connections it opened close once idle, so a
// deployment holds what its load needs rather than its maximum (a server's connection limit is shared).
import assert from "node:assert/strict";
import { onRealServer, testDatabaseUrl, testSql } from "../helpers/db.ts";
import { connect } from "../../shared/db.ts";

const realServer = await onRealServer();

Deno.test({
  name: "a burst's connections close once idle (real server)",
  ignore: !realServer,
  sanitizeOps: false,
  sanitizeResources: false,
  async fn() {
    const pool = connect(testDatabaseUrl(), { max: 4, idleSeconds: 1 });
    try {
      // four queries at once hold four connections, each its own backend
      const pids = await Promise.all(Array.from({ length: 4 }, async () => {
        const [{ pid }] = await pool<{ pid: number }[]>`select pg_backend_pid() as pid, pg_sleep(0.2)`;
        return pid;
      }));
      assert.equal(new Set(pids).size, 4);
      const open = async () =>
        (await testSql()<{ n: number }[]>`select count(*)::int as n from pg_stat_activity where pid = any(${pids})`)[0].n;
      assert.equal(await open(), 4);
      const deadline = Date.now() + 10_000;
      while (await open() > 0 && Date.now() < deadline) await new Promise((r) => setTimeout(r, 250));
      assert.equal(await open(), 0, "every idle connection closed");
      // and the pool opens one again when asked
      assert.equal((await pool`select 1 as one`)[0].one, 1);
    } finally {
      await pool.end();
    }
  },
});
