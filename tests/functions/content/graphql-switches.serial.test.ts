// The GraphQL address under the site-wide switches: a private site wants a key (ACCESS_TOKEN_MISSING
// without one), api.space renames the space, the api module switched off is NOT_FOUND.
import assert from "node:assert/strict";
import { test } from "../../helpers/test.ts";
import { testHost } from "../../helpers/host.ts";
import { withSettings } from "../../helpers/site-settings.ts";
import { codes, post } from "./graphql-support.ts";

const host = await testHost();
const key = await host.key("delivery");
const QUERY = `{ articleCollection(limit: 1) { total } }`;
const address = (space: string) =>
  `${host.baseUrl}/api/content/content/v1/spaces/${space}/environments/master`;

test("api.public false: no key is ACCESS_TOKEN_MISSING 401, a delivery key still reads", async () => {
  await withSettings((config) => (config.api = { ...config.api, public: false }), async () => {
    const anonymous = await post(address(host.space), undefined, QUERY);
    assert.equal(anonymous.status, 401);
    assert.deepEqual(codes(anonymous), ["ACCESS_TOKEN_MISSING"]);
    const keyed = await post(address(host.space), key, QUERY);
    assert.equal(keyed.status, 200);
  });
});

test("api.space renames the space: the old id is UNKNOWN_SPACE", async () => {
  await withSettings((config) => (config.api = { ...config.api, space: "renamed-space" }), async () => {
    assert.equal((await post(address("renamed-space"), key, QUERY)).status, 200);
    const old = await post(address(host.space), key, QUERY);
    assert.equal(old.status, 404);
    assert.deepEqual(codes(old), ["UNKNOWN_SPACE"]);
  });
});

test("the api module switched off: GraphQL answers NOT_FOUND 404", async () => {
  await withSettings((_config, modules) => (modules.api = false), async () => {
    const answer = await post(address(host.space), key, QUERY);
    assert.equal(answer.status, 404);
    assert.deepEqual(codes(answer), ["NOT_FOUND"]);
  });
});
