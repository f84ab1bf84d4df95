// RATE_LIMIT_SCALE (the bench's way to load the APIs without 429s): the gate multiplies every window's
// limit, enforces the scaled limits, and the answers' headers state the scaled limits, the ones enforced.
import assert from "node:assert/strict";
import { test } from "../helpers/test.ts";
import { testSql } from "../helpers/db.ts";
import { serveTestHost } from "../helpers/host.ts";
import { fillWindow } from "../helpers/rate-limits.ts";
import { admit, scaledWindows } from "../../shared/gate.ts";
import { createKey, hashKey } from "../../shared/keys.ts";
import { CONTENT_RATE_LIMITS } from "../../functions/content/access.ts";
import { SCHEDULING_RATE_LIMITS } from "../../functions/scheduling-api/access.ts";

const sql = testSql();

test("scaledWindows multiplies each limit, keeps the windows' lengths, and never goes below one", () => {
  const windows = [{ seconds: 3600, limit: 36_000 }, { seconds: 1, limit: 78 }];
  assert.deepEqual(scaledWindows(windows, 10), [{ seconds: 3600, limit: 360_000 }, {
    seconds: 1,
    limit: 780,
  }]);
  assert.deepEqual(scaledWindows(windows, 0.5), [{ seconds: 3600, limit: 18_000 }, {
    seconds: 1,
    limit: 39,
  }]);
  assert.deepEqual(scaledWindows([{ seconds: 1, limit: 3 }], 0.01), [{ seconds: 1, limit: 1 }]);
  assert.equal(scaledWindows(windows, 1), windows, "the default scale leaves the windows as they are");
});

test("admit counts against the scaled limits: the default scale refuses the 4th of 3, scale 2 the 7th", async () => {
  const windows = [{ seconds: 60, limit: 3 }];
  const now = new Date();
  const statuses = async (scale: number | undefined, n: number) => {
    const address = `198.51.100.${Math.floor(Math.random() * 250) + 1}-${crypto.randomUUID()}`;
    const out: boolean[] = [];
    for (let i = 0; i < n; i++) {
      const a = await admit(sql, { api: "scale-test", clientAddress: address, windows, now, scale });
      out.push(Boolean(a.exceeded));
      assert.equal(a.windows[0].limit, 3 * (scale ?? 1));
    }
    return out;
  };
  assert.deepEqual(await statuses(undefined, 4), [false, false, false, true]);
  assert.deepEqual(await statuses(2, 7), [false, false, false, false, false, false, true]);
});

test("a host with RATE_LIMIT_SCALE=10 states and enforces ten times every limit in its headers", async () => {
  const served = serveTestHost(sql, { settings: { RATE_LIMIT_SCALE: "10" } });
  const { baseUrl } = served;
  try {
    const [site] = await sql<{ slug: string; config: { api?: { space?: string } } }[]>`
      select slug, config from public.site_settings`;
    const space = site.config?.api?.space ?? site.slug;

    const content = (await createKey(sql, { name: "scale content", kind: "delivery" })).key;
    const read = await fetch(`${baseUrl}/api/content/spaces/${space}/entries?limit=1`, {
      headers: { authorization: `Bearer ${content}` },
    });
    await read.body?.cancel();
    assert.equal(read.status, 200);
    const [hour, second] = CONTENT_RATE_LIMITS;
    assert.equal(Number(read.headers.get("x-contentful-ratelimit-hour-limit")), hour.limit * 10);
    assert.equal(Number(read.headers.get("x-contentful-ratelimit-second-limit")), second.limit * 10);
    assert.equal(Number(read.headers.get("x-contentful-ratelimit-second-remaining")), second.limit * 10 - 1);
    assert.match(read.headers.get("ratelimit-policy")!, new RegExp(`"second";q=${second.limit * 10};w=1`));

    const scheduling = (await createKey(sql, { name: "scale scheduling", kind: "scheduling" })).key;
    const me = () =>
      fetch(`${baseUrl}/api/scheduling/v2/me`, { headers: { authorization: `Bearer ${scheduling}` } });
    const first = await me();
    await first.body?.cancel();
    const [minute] = SCHEDULING_RATE_LIMITS.filter((w) => w.seconds === 60);
    assert.equal(first.status, 200);
    assert.match(first.headers.get("ratelimit-policy")!, new RegExp(`"minute";q=${minute.limit * 10};w=60`));

    // the minute window filled up to its unscaled limit still admits; filled to the scaled one, refuses
    const bucket = `scheduling:key:${(await hashKey(scheduling)).slice(0, 24)}`;
    const fill = (hits: number) => fillWindow(sql, bucket, SCHEDULING_RATE_LIMITS, 60, hits);
    await fill(minute.limit);
    const past = await me();
    await past.body?.cancel();
    assert.equal(past.status, 200, "the unscaled limit is not what this host enforces");
    assert.match(
      past.headers.get("ratelimit")!,
      new RegExp(`"minute";r=${minute.limit * 10 - minute.limit - 1};`),
    );
    await fill(minute.limit * 10);
    const refused = await me();
    await refused.body?.cancel();
    assert.equal(refused.status, 429);
    assert.ok(Number(refused.headers.get("retry-after")) >= 1);
  } finally {
    await served.close();
  }
});
