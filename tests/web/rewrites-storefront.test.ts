// The Store API's rules in the rewrite table: `:name` segments, and what a production host receives.
import assert from "node:assert/strict";
import { test } from "../helpers/test.ts";
import { emitRewrites, rewrite } from "../../web/rewrites.ts";

test("the store's public paths reach storefront-api: /api/store/..., /api/carts/..., /api/<version>/graphql(.json), /cart*, /app", () => {
  assert.deepEqual(rewrite("/api/store/api/2024-10/graphql.json"), {
    fn: "storefront-api",
    path: "/api/2024-10/graphql.json",
  });
  assert.deepEqual(rewrite("/api/2025-01/graphql.json"), {
    fn: "storefront-api",
    path: "/api/2025-01/graphql.json",
  });
  assert.deepEqual(rewrite("/api/unstable/graphql"), { fn: "storefront-api", path: "/api/unstable/graphql" });
  assert.deepEqual(rewrite("/api/carts/abc"), { fn: "storefront-api", path: "/carts/abc" });
  assert.deepEqual(rewrite("/cart/c/abc"), { fn: "storefront-api", path: "/cart/c/abc" });
  assert.deepEqual(rewrite("/cart"), { fn: "storefront-api", path: "/cart" });
  assert.deepEqual(rewrite("/app"), { fn: "storefront-api", path: "/app" });
  // a `:name` segment is one segment, never empty, never several
  assert.notEqual(rewrite("/api/a/b/graphql.json")?.fn, "storefront-api");
  assert.notEqual(rewrite("/api//graphql.json")?.fn, "storefront-api");
  assert.notEqual(rewrite("/api/2024-10/graphql.json/x")?.fn, "storefront-api");
  // earlier rules keep their paths
  assert.equal(rewrite("/api/content/spaces/demo/entries")?.fn, "content");
});

test("the table renders the version segment as a production host's :param", () => {
  const rules = emitRewrites("https://fn.example.org");
  assert.ok(rules.some((r) =>
    r.source === "/api/:version/graphql.json" &&
    r.destination === "https://fn.example.org/functions/v1/storefront-api/api/:version/graphql.json"
  ));
});
