// Site-wide switches (api.public, api.space, the api module). These change the one settings row, so
// they run in the serial batch after every other test.
import assert from "node:assert/strict";
import { test } from "../../helpers/test.ts";
import { testHost } from "../../helpers/host.ts";
import { withSettings } from "../../helpers/site-settings.ts";

const host = await testHost();
const key = await host.key("delivery");

const entries = (space: string) => `${host.baseUrl}/api/content/spaces/${space}/environments/master/entries?limit=1`;

test("api.public false: no key is AccessTokenInvalid, a delivery key still reads", async () => {
  await withSettings((config) => (config.api = { ...config.api, public: false }), async () => {
    const anonymous = await fetch(entries(host.space));
    assert.equal(anonymous.status, 401);
    assert.equal((await anonymous.json()).sys.id, "AccessTokenInvalid");
    const keyed = await fetch(entries(host.space), { headers: { authorization: `Bearer ${key}` } });
    assert.equal(keyed.status, 200);
    await keyed.body?.cancel();
  });
  const open = await fetch(entries(host.space));
  assert.equal(open.status, 200);
  await open.body?.cancel();
});

test("api.space names the space: the old id becomes NotFound", async () => {
  await withSettings((config) => (config.api = { ...config.api, space: "renamed-space" }), async () => {
    const renamed = await fetch(entries("renamed-space"));
    assert.equal(renamed.status, 200);
    const body = await renamed.json();
    assert.equal(body.items[0].sys.space.sys.id, "renamed-space");
    const old = await fetch(entries(host.space));
    assert.equal(old.status, 404);
    assert.deepEqual((await old.json()).details, { type: "Space", id: host.space });
  });
});

test("the api module switched off: the content API answers NotFound", async () => {
  await withSettings((_config, modules) => (modules.api = false), async () => {
    const res = await fetch(entries(host.space), { headers: { authorization: `Bearer ${key}` } });
    assert.equal(res.status, 404);
    assert.equal((await res.json()).sys.id, "NotFound");
  });
});

test("the api module switched off: the /api reference page and its renderer answer NotFound", async () => {
  await withSettings((_config, modules) => (modules.api = false), async () => {
    for (const path of ["/api", "/api/reference/scalar.js"]) {
      const res = await fetch(`${host.baseUrl}${path}`);
      assert.equal(res.status, 404, path);
      assert.equal((await res.json()).sys.id, "NotFound");
    }
  });
  const on = await fetch(`${host.baseUrl}/api`);
  assert.equal(on.status, 200);
  await on.body?.cancel();
});
