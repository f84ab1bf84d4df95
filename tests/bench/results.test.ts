import { test } from "../helpers/test.ts";
import assert from "node:assert/strict";
import { mergedResults } from "../../bench/results.ts";

test("a partial bench run replaces its own database's entries and keeps the other database's beside them", () => {
  const previous = {
    database: "embedded pglite",
    results: [
      { name: "one entry", ratio: 2.4 }, // the full run's, on its database
      { name: "one entry", database: "postgresql server", ratio: 3.9 },
      { name: "slots", database: "postgresql server", ratio: 0.5 },
    ],
  };
  const onServer = mergedResults(previous, [{ name: "one entry", database: "postgresql server", ratio: 3.7 }], "postgresql server");
  assert.deepEqual(onServer, [
    { name: "one entry", ratio: 2.4 },
    { name: "slots", database: "postgresql server", ratio: 0.5 },
    { name: "one entry", database: "postgresql server", ratio: 3.7 },
  ]);
  const onPglite = mergedResults(previous, [{ name: "one entry", database: "embedded pglite", ratio: 2.3 }], "embedded pglite");
  assert.deepEqual(onPglite.map((r) => [r.database ?? "-", r.ratio]), [
    ["postgresql server", 3.9],
    ["postgresql server", 0.5],
    ["embedded pglite", 2.3],
  ]);
  // a full run keeps nothing of an earlier file
  assert.deepEqual(mergedResults(undefined, [{ name: "slots", ratio: 0.4 }], "embedded pglite"), [{ name: "slots", ratio: 0.4 }]);
});
