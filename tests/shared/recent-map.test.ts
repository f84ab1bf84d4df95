// RecentMap: a read makes an entry the most recently used; past the bound the least recently used goes.
import assert from "node:assert/strict";
import { test } from "../helpers/test.ts";
import { RecentMap } from "../../shared/recent-map.ts";

test("past its bound the least recently used entry goes, a read counting as a use", () => {
  const kept = new RecentMap<string, number>(2);
  kept.set("a", 1);
  kept.set("b", 2);
  assert.equal(kept.get("a"), 1); // now b is the least recently used
  kept.set("c", 3);
  assert.equal(kept.size, 2);
  assert.equal(kept.has("b"), false);
  assert.equal(kept.get("a"), 1);
  assert.equal(kept.get("c"), 3);
});

test("has neither reads nor moves an entry, and setting a key again keeps one entry", () => {
  const kept = new RecentMap<string, number>(2);
  kept.set("a", 1);
  kept.set("b", 2);
  assert.equal(kept.has("a"), true); // not a use: a is still the least recently used
  kept.set("b", 20);
  assert.equal(kept.size, 2);
  kept.set("c", 3);
  assert.equal(kept.has("a"), false);
  assert.equal(kept.get("b"), 20);
  assert.equal(kept.get("missing"), undefined);
});
