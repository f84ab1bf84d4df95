// The functions' secrets are made once, at random, and kept in site_secrets so every instance signs alike,
// even when two instances ask for a new one at the same moment (on the real server, where transactions
// truly overlap; PGlite serves one session at a time).
import assert from "node:assert/strict";
import { test } from "../helpers/test.ts";
import { emptyDatabase } from "../helpers/db.ts";
import { connect } from "../../shared/db.ts";
import { migrate } from "../../shared/migrate.ts";
import { databaseSecrets } from "../../shared/secrets.ts";

test("a secret another instance is making at the same moment is theirs, not an error", async () => {
  const db = await emptyDatabase("sitewire_secrets");
  if (!db.onServer) return await db.drop(); // one session at a time: nothing overlaps
  const sql = connect(db.url, { max: 2 });
  const other = connect(db.url, { max: 1 });
  try {
    await migrate(sql);
    let asked: Promise<string> | undefined;
    await other.begin(async (tx) => {
      // the other instance's insert, not yet committed: ours waits on it, then does nothing
      await tx`insert into public.site_secrets (name, value) values ('raced', 'theirs')`;
      asked = databaseSecrets(sql).get("raced");
      await new Promise((r) => setTimeout(r, 200));
    });
    assert.equal(await asked, "theirs");
    assert.equal(await databaseSecrets(sql).get("raced"), "theirs");
  } finally {
    await sql.end();
    await other.end();
    await db.drop();
  }
});
