import assert from "node:assert/strict";
import { test } from "../helpers/test.ts";
import { emitRewrites, rewrite } from "../../web/rewrites.ts";

test("public paths map to their function and inner path", () => {
  assert.deepEqual(rewrite("/api/content/spaces/demo/entries"), { fn: "content", path: "/spaces/demo/entries" });
  assert.deepEqual(rewrite("/api/content/content/v1/openapi.json"), { fn: "content", path: "/content/v1/openapi.json" });
  assert.deepEqual(rewrite("/api/media/demo/a/b/c.png"), { fn: "content", path: "/media/demo/a/b/c.png" });
  assert.deepEqual(rewrite("/openapi.json"), { fn: "content", path: "/openapi.json" });
  assert.equal(rewrite("/openapi.json/x"), undefined);
  assert.equal(rewrite("/nothing"), undefined);
});

test("the table renders as rewrites for a production host", () => {
  const rules = emitRewrites("https://fn.example.org");
  assert.ok(rules.some((r) => r.source === "/api/content/:path*" && r.destination === "https://fn.example.org/functions/v1/content/:path*"));
  assert.ok(rules.some((r) => r.source === "/openapi.json" && r.destination === "https://fn.example.org/functions/v1/content/openapi.json"));
});
