// The images door over HTTP: originals, every parameter's effect, errors, caching.
import assert from "node:assert/strict";
import { Image } from "imagescript";
import { test } from "../../helpers/test.ts";
import { testHost } from "../../helpers/host.ts";
import { testSql } from "../../helpers/db.ts";
import { MAX_INPUT_PIXELS } from "../../../shared/images/sniff.ts";
import { Hono } from "hono";
import { mediaHandler, type MediaOptions } from "../../../functions/content/routes/media.ts";
import { serviceKey } from "../../../shared/service-key.ts";
import { contentErrorHandler } from "../../../functions/content/envelope.ts";
import { transformImage } from "../../../functions/content/images/mod.ts";

const host = await testHost();
const sql = testSql();

async function assetPath(contentType: string) {
  const [a] = await sql<
    { id: string; content_hash: string; file_name: string; width: number; height: number }[]
  >`
    select id, content_hash, file_name, width, height from public.content_assets
    where content_type = ${contentType} and published order by size desc limit 1`;
  assert.ok(a, `the demo site has a ${contentType} asset`);
  return { ...a, url: `${host.baseUrl}/api/media/${host.space}/${a.id}/${a.content_hash}/${a.file_name}` };
}

async function fetchImage(url: string) {
  const res = await fetch(url);
  const bytes = new Uint8Array(await res.arrayBuffer());
  return { res, bytes };
}

test("the original is served untouched with immutable caching and an ETag", async () => {
  const a = await assetPath("image/png");
  const { res, bytes } = await fetchImage(a.url);
  assert.equal(res.status, 200);
  assert.equal(res.headers.get("content-type"), "image/png");
  assert.equal(res.headers.get("cache-control"), "public, max-age=31536000, immutable");
  const [stored] = await sql<{ bytes: Uint8Array }[]>`select bytes from public.storage_objects
    where bucket = 'media' and key = (select storage_key from public.content_assets where id = ${a.id})`;
  assert.deepEqual(bytes, new Uint8Array(stored.bytes));
  const again = await fetch(a.url, { headers: { "if-none-match": res.headers.get("etag")! } });
  assert.equal(again.status, 304);
  await again.body?.cancel();
});

for (
  const [contentType, fm, expected] of [
    ["image/jpeg", "png", "image/png"],
    ["image/png", "jpg", "image/jpeg"],
    ["image/png", "webp", "image/webp"],
    ["image/jpeg", "avif", "image/webp"],
    ["image/webp", "png", "image/png"],
    ["image/gif", "png", "image/png"],
    ["image/jpeg", "gif", "image/gif"],
  ]
) {
  test(`fm=${fm} turns ${contentType} into ${expected}`, async () => {
    const a = await assetPath(contentType);
    const { res, bytes } = await fetchImage(`${a.url}?fm=${fm}&w=40`);
    assert.equal(res.status, 200);
    assert.equal(res.headers.get("content-type"), expected);
    const magic = Array.from(bytes.slice(0, 4));
    const signature = {
      "image/png": [0x89, 0x50, 0x4e, 0x47],
      "image/jpeg": [0xff, 0xd8, 0xff],
      "image/gif": [0x47, 0x49, 0x46, 0x38],
      "image/webp": [0x52, 0x49, 0x46, 0x46],
    }[expected]!;
    assert.deepEqual(magic.slice(0, signature.length), signature);
  });
}

test("w and h fit within the box keeping the aspect; fit=scale stretches; fit=fill and thumb fill exactly", async () => {
  const a = await assetPath("image/jpeg");
  const decode = async (q: string) => {
    const { bytes } = await fetchImage(`${a.url}?fm=png&${q}`);
    return await Image.decode(bytes);
  };
  const within = await decode("w=100&h=100");
  assert.ok(within.width <= 100 && within.height <= 100);
  assert.ok(within.width === 100 || within.height === 100);
  assert.ok(Math.abs(within.width / within.height - a.width / a.height) < 0.05);
  for (const fit of ["scale", "fill", "thumb", "pad"]) {
    const img = await decode(`w=90&h=40&fit=${fit}`);
    assert.deepEqual([img.width, img.height], [90, 40], fit);
  }
  const onlyW = await decode("w=60");
  assert.equal(onlyW.width, 60);
});

test("fit=pad fills with bg, r rounds corners to transparency, q changes the jpeg size", async () => {
  const a = await assetPath("image/jpeg");
  const padded = await Image.decode(
    (await fetchImage(`${a.url}?fm=png&w=100&h=300&fit=pad&bg=rgb:ff0000`)).bytes,
  );
  const [r, g, b] = Image.colorToRGBA(padded.getPixelAt(1, 1));
  assert.deepEqual([r, g, b], [255, 0, 0]);
  const rounded = await Image.decode((await fetchImage(`${a.url}?fm=png&w=100&h=100&fit=fill&r=max`)).bytes);
  assert.equal(Image.colorToRGBA(rounded.getPixelAt(1, 1))[3], 0);
  const low = (await fetchImage(`${a.url}?fm=jpg&w=300&q=10`)).bytes.length;
  const high = (await fetchImage(`${a.url}?fm=jpg&w=300&q=95`)).bytes.length;
  assert.ok(low < high, `${low} < ${high}`);
});

test("fit=crop with a focus takes that region", async () => {
  const a = await assetPath("image/jpeg");
  const left = await Image.decode((await fetchImage(`${a.url}?fm=png&w=50&h=50&fit=crop&f=top_left`)).bytes);
  const right = await Image.decode(
    (await fetchImage(`${a.url}?fm=png&w=50&h=50&fit=crop&f=bottom_right`)).bytes,
  );
  assert.deepEqual([left.width, left.height], [50, 50]);
  assert.notDeepEqual(Array.from(left.bitmap.slice(0, 400)), Array.from(right.bitmap.slice(0, 400)));
});

test("a transform is cached by its parameters, whatever their order", async () => {
  const a = await assetPath("image/png");
  const first = await fetch(`${a.url}?w=33&h=21&fit=fill&fm=webp`);
  await first.body?.cancel();
  const second = await fetch(`${a.url}?fm=webp&fit=fill&h=21&w=33`);
  await second.body?.cancel();
  assert.equal(first.headers.get("x-image-cache"), "miss");
  assert.equal(second.headers.get("x-image-cache"), "hit");
  assert.equal(first.headers.get("etag"), second.headers.get("etag"));
  assert.equal(second.headers.get("cache-control"), "public, max-age=31536000, immutable");
});

test("out-of-range or malformed parameters are BadQuery", async () => {
  const a = await assetPath("image/png");
  for (
    const q of [
      "w=0",
      "w=4001",
      "h=-3",
      "q=0",
      "q=101",
      "fit=stretch",
      "f=middle",
      "fm=bmp",
      "r=round",
      "bg=red",
      "bg=rgb:12345",
    ]
  ) {
    const res = await fetch(`${a.url}?${q}`);
    const body = await res.json();
    assert.equal(res.status, 400, q);
    assert.equal(body.sys.id, "BadQuery", q);
  }
});

test("an unknown asset, a stale hash or another space is NotFound", async () => {
  const a = await assetPath("image/png");
  for (
    const url of [
      `${host.baseUrl}/api/media/${host.space}/nosuchasset/${a.content_hash}/x.png`,
      `${host.baseUrl}/api/media/${host.space}/${a.id}/0000000000000000/${a.file_name}`,
      `${host.baseUrl}/api/media/otherspace/${a.id}/${a.content_hash}/${a.file_name}`,
    ]
  ) {
    const res = await fetch(url);
    assert.equal(res.status, 404, url);
    assert.equal((await res.json()).sys.id, "NotFound");
  }
});

test("a source whose header claims too many pixels is refused before decoding, with a clear 4xx", async () => {
  // a PNG header claiming 60000x60000 followed by nothing: decoding it would exhaust memory
  const png = new Uint8Array([
    0x89,
    0x50,
    0x4e,
    0x47,
    0x0d,
    0x0a,
    0x1a,
    0x0a,
    0,
    0,
    0,
    13,
    0x49,
    0x48,
    0x44,
    0x52,
    0,
    0,
    0xea,
    0x60,
    0,
    0,
    0xea,
    0x60,
    8,
    6,
    0,
    0,
    0,
    0,
    0,
    0,
    0,
  ]);
  assert.ok(60000 * 60000 > MAX_INPUT_PIXELS);
  const id = `huge${Date.now()}`;
  await sql`insert into public.storage_objects (bucket, key, content_type, size, bytes) values ('media', ${`media/${id}.png`}, 'image/png', ${png.length}, ${png})`;
  await sql`insert into public.content_assets (id, path, file_name, content_type, size, width, height, content_hash, storage_key)
    values (${id}, ${`media/${id}.png`}, ${`${id}.png`}, 'image/png', ${png.length}, 60000, 60000, 'abc', ${`media/${id}.png`})`;
  try {
    const res = await fetch(`${host.baseUrl}/api/media/${host.space}/${id}/abc/${id}.png?w=100`);
    const body = await res.json();
    assert.ok(res.status >= 400 && res.status < 500, String(res.status));
    assert.equal(body.sys.type, "Error");
    assert.match(body.message, /pixel|large|dimension/i);
  } finally {
    await sql`delete from public.content_assets where id = ${id}`;
    await sql`delete from public.storage_objects where bucket = 'media' and key = ${`media/${id}.png`}`;
  }
});

/** The images door alone, as the content app mounts it, with options of the test's own. */
function mediaApp(options: MediaOptions) {
  const app = new Hono();
  app.onError(contentErrorHandler);
  app.get("/media/:space/:asset/:hash/:file", mediaHandler(host.ctx, options));
  return app;
}

/** A file's address as the door itself sees it (the host maps /api/media/* to the function's /media/*). */
const doorPath = (url: string) => new URL(url).pathname.replace(/^\/api\/media\//, "/media/");

const uniqueAddress = () =>
  `198.51.100.${Math.floor(Math.random() * 250) + 1}:${crypto.randomUUID().slice(0, 8)}`;

test("identical transforms asked for at once are computed once and answered to every caller", async () => {
  const a = await assetPath("image/png");
  let computed = 0;
  const app = mediaApp({
    transform: async (bytes, params) => {
      computed++;
      await new Promise((resolve) => setTimeout(resolve, 50)); // long enough for the others to arrive
      return await transformImage(bytes, params);
    },
  });
  const width = 100 + Math.floor(Math.random() * 800); // a size no other test asks for: not cached yet
  const path = `${doorPath(a.url)}?w=${width}&fm=png&q=77`;
  const answers = await Promise.all(
    Array.from({ length: 4 }, () => app.request(path, {}, { clientAddress: uniqueAddress() })),
  );
  assert.deepEqual(answers.map((r) => r.status), [200, 200, 200, 200]);
  const bodies = await Promise.all(
    answers.map(async (r) => Array.from(new Uint8Array(await r.arrayBuffer()))),
  );
  assert.equal(computed, 1, "one computation for four identical requests");
  for (const body of bodies) assert.deepEqual(body, bodies[0]);
  assert.equal((await Image.decode(new Uint8Array(bodies[0]))).width, width);
});

test("an address may start only so many transforms: then 429 with Retry-After, while cached ones and other addresses go on", async () => {
  const a = await assetPath("image/jpeg");
  const app = mediaApp({ transformLimits: [{ seconds: 3600, limit: 2 }] });
  const address = uniqueAddress();
  const base = doorPath(a.url);
  const width = 100 + Math.floor(Math.random() * 800);
  const ask = (w: number, from = address) =>
    app.request(`${base}?w=${w}&fm=webp`, {}, { clientAddress: from });
  for (const w of [width, width + 1]) {
    const res = await ask(w);
    assert.equal(res.status, 200);
    assert.equal(res.headers.get("x-image-cache"), "miss");
    await res.body?.cancel();
  }
  const refused = await ask(width + 2);
  assert.equal(refused.status, 429);
  assert.equal((await refused.json()).sys.id, "RateLimitExceeded");
  assert.ok(Number(refused.headers.get("retry-after")) >= 1);
  const cached = await ask(width);
  assert.equal(cached.status, 200, "a cached transform is served past the limit");
  assert.equal(cached.headers.get("x-image-cache"), "hit");
  await cached.body?.cancel();
  const original = await app.request(base, {}, { clientAddress: address });
  assert.equal(original.status, 200, "the original is served past the limit");
  await original.body?.cancel();
  const other = await ask(width + 2, uniqueAddress());
  assert.equal(other.status, 200, "another address is not held back");
  await other.body?.cancel();
});

test("cached transforms of a file no asset has any more (deleted or replaced) are swept from storage", async () => {
  const source = await assetPath("image/png");
  const [{ bytes }] = await sql<{ bytes: Uint8Array }[]>`select o.bytes from public.storage_objects o
    join public.content_assets a on a.storage_key = o.key where o.bucket = 'media' and a.id = ${source.id}`;
  const made: string[] = [];
  const makeAsset = async () => {
    const id = `sweepprobe${crypto.randomUUID().replaceAll("-", "").slice(0, 12)}`;
    const hash = crypto.randomUUID().replaceAll("-", "");
    await sql`insert into public.storage_objects (bucket, key, content_type, size, bytes)
      values ('media', ${`media/${id}.png`}, 'image/png', ${bytes.length}, ${bytes})`;
    await sql`insert into public.content_assets (id, path, file_name, content_type, size, width, height, content_hash, storage_key)
      values (${id}, ${`media/${id}.png`}, ${`${id}.png`}, 'image/png', ${bytes.length}, ${source.width}, ${source.height}, ${hash}, ${`media/${id}.png`})`;
    made.push(id);
    return { id, hash, url: `${host.baseUrl}/api/media/${host.space}/${id}/${hash}/${id}.png` };
  };
  const cachedOf = async (hash: string) =>
    (await sql<
      { key: string }[]
    >`select key from public.storage_objects where bucket = 'image-cache' and key like ${`${hash}/%`}`)
      .map((r) => r.key);
  const listed = async (hash: string) =>
    (await sql`select 1 from public.content_image_variants where content_hash = ${hash}`).length;
  try {
    const [replaced, deleted, kept] = [await makeAsset(), await makeAsset(), await makeAsset()];
    for (const asset of [replaced, deleted, kept]) {
      const res = await fetch(`${asset.url}?w=20&fm=png`);
      assert.equal(res.status, 200);
      await res.body?.cancel();
      assert.equal((await cachedOf(asset.hash)).length, 1);
      assert.equal(await listed(asset.hash), 1);
    }
    // one asset's file is replaced (a new content hash), another asset goes
    await sql`update public.content_assets set content_hash = ${
      crypto.randomUUID().replaceAll("-", "")
    } where id = ${replaced.id}`;
    await sql`delete from public.content_assets where id = ${deleted.id}`;
    // pg_cron's daily call: the route, with the service key only
    const route = `${host.baseUrl}/api/content/sweep-image-cache`;
    for (const token of [undefined, await host.key("management"), await host.revokedKey("management")]) {
      const refused = await fetch(route, { method: "POST", headers: token ? { authorization: `Bearer ${token}` } : {} });
      assert.equal(refused.status, 401);
      assert.equal((await refused.json()).sys.id, "AccessTokenInvalid");
    }
    const swept = await fetch(route, { method: "POST", headers: { authorization: `Bearer ${await serviceKey(host.ctx)}` } });
    assert.equal(swept.status, 200);
    // (a transform computed meanwhile by another test may have swept them first: the files are what count)
    assert.equal(typeof (await swept.json()).removed, "number");
    assert.deepEqual(await cachedOf(replaced.hash), []);
    assert.deepEqual(await cachedOf(deleted.hash), []);
    assert.equal(await listed(replaced.hash) + await listed(deleted.hash), 0);
    assert.equal((await cachedOf(kept.hash)).length, 1, "a file still in use keeps its transforms");

    // without anyone calling the sweep: the next transform computed sweeps a little
    await sql`delete from public.content_assets where id = ${kept.id}`;
    const trigger = await fetch(`${source.url}?w=${100 + Math.floor(Math.random() * 800)}&fm=gif`);
    assert.equal(trigger.status, 200);
    await trigger.body?.cancel();
    const deadline = Date.now() + 5000;
    while ((await cachedOf(kept.hash)).length && Date.now() < deadline) {
      await new Promise((r) => setTimeout(r, 50));
    }
    assert.deepEqual(await cachedOf(kept.hash), []);
  } finally {
    await sql`delete from public.content_assets where id = any(${made}::text[])`;
    await sql`delete from public.storage_objects where bucket = 'media' and key = any(${
      made.map((id) => `media/${id}.png`)
    }::text[])`;
  }
});

test("a process computes only a few transforms at once; the others wait their turn and are answered", async () => {
  const a = await assetPath("image/png");
  let running = 0;
  let most = 0;
  const app = mediaApp({
    atOnce: 2,
    transform: async (bytes, params) => {
      most = Math.max(most, ++running);
      await new Promise((resolve) => setTimeout(resolve, 30));
      try {
        return await transformImage(bytes, params);
      } finally {
        running--;
      }
    },
  });
  const base = doorPath(a.url);
  const first = 100 + Math.floor(Math.random() * 800);
  const answers = await Promise.all(
    [0, 1, 2, 3, 4].map((n) =>
      app.request(`${base}?w=${first + n}&fm=png&q=51`, {}, { clientAddress: uniqueAddress() })
    ),
  );
  assert.deepEqual(answers.map((r) => r.status), [200, 200, 200, 200, 200]);
  await Promise.all(answers.map((r) => r.body?.cancel()));
  assert.equal(most, 2);
});

test("one address has one transform computed at a time: another address is served beside its queue", async () => {
  const a = await assetPath("image/png");
  const started: string[] = [];
  const finished: string[] = [];
  let greedyAtOnce = 0, greedyMost = 0;
  const first = 100 + Math.floor(Math.random() * 800);
  const otherWidth = first + 10;
  const app = mediaApp({
    atOnce: 2,
    transform: async (bytes, params) => {
      const who = params.width === otherWidth ? "other" : "greedy";
      started.push(who);
      if (who === "greedy") greedyMost = Math.max(greedyMost, ++greedyAtOnce);
      await new Promise((resolve) => setTimeout(resolve, 150));
      try {
        return await transformImage(bytes, params);
      } finally {
        finished.push(who);
        if (who === "greedy") greedyAtOnce--;
      }
    },
  });
  const base = doorPath(a.url);
  const greedy = uniqueAddress();
  // r=7 is this test's alone: the asks above (q=51, which a png drops) draw widths from the same range, and a
  // variant one of them kept would be served without a transform
  const asks = [0, 1, 2, 3].map((n) =>
    app.request(`${base}?w=${first + n}&fm=png&r=7`, {}, { clientAddress: greedy })
  );
  await new Promise((resolve) => setTimeout(resolve, 20));
  const other = app.request(`${base}?w=${otherWidth}&fm=png&r=7`, {}, { clientAddress: uniqueAddress() });
  const answers = await Promise.all([...asks, other]);
  assert.deepEqual(answers.map((r) => r.status), [200, 200, 200, 200, 200]);
  await Promise.all(answers.map((r) => r.body?.cancel()));
  assert.equal(greedyMost, 1, `the greedy address never had two computed at once: ${started}`);
  // without a line per address the other would wait behind the whole queue and finish last
  assert.ok(finished.indexOf("other") <= 1, `the other address did not wait behind its queue: ${finished}`);
});

test("a transform is bounded in the pixels it makes: past 3840×2160 it is refused before any decoding", async () => {
  const a = await assetPath("image/png");
  let computed = 0;
  const app = mediaApp({
    transform: async (bytes, params) => {
      computed++;
      return await transformImage(bytes, params);
    },
  });
  const base = doorPath(a.url);
  const started = performance.now();
  for (const query of ["w=4000&h=4000&fit=scale", "w=4000&h=2200&fit=pad", "w=3000&h=3000&fit=fill"]) {
    const res = await app.request(`${base}?${query}`, {}, { clientAddress: uniqueAddress() });
    const body = await res.json();
    assert.equal(res.status, 422, query);
    assert.equal(body.sys.id, "ValidationFailed");
    assert.match(body.message, /at most 8294400 pixels/);
  }
  assert.equal(computed, 3);
  assert.ok(performance.now() - started < 1000, "refused without the work");
});

test("a library file a browser would run as a page (HTML, SVG) is sandboxed; pictures and PDFs are not, and nothing is sniffed", async () => {
  const made: string[] = [];
  const place = async (fileName: string, contentType: string, text: string) => {
    const id = `guardprobe${crypto.randomUUID().replaceAll("-", "").slice(0, 12)}`;
    const bytes = new TextEncoder().encode(text);
    await sql`insert into public.storage_objects (bucket, key, content_type, size, bytes)
      values ('media', ${`media/${id}/${fileName}`}, ${contentType}, ${bytes.length}, ${bytes})`;
    await sql`insert into public.content_assets (id, path, file_name, content_type, size, content_hash, storage_key)
      values (${id}, ${`media/${id}/${fileName}`}, ${fileName}, ${contentType}, ${bytes.length}, ${id}, ${`media/${id}/${fileName}`})`;
    made.push(id);
    return `${host.baseUrl}/api/media/${host.space}/${id}/${id}/${fileName}`;
  };
  try {
    const page = "<script>fetch('/api/content/spaces/demo/entries')</script>";
    for (
      const url of [
        await place("page.html", "text/html", page),
        await place("drawing.svg", "image/svg+xml", `<svg xmlns="http://www.w3.org/2000/svg">${page}</svg>`),
      ]
    ) {
      const res = await fetch(url);
      assert.equal(res.status, 200);
      assert.equal(res.headers.get("content-security-policy"), "sandbox", url);
      assert.equal(res.headers.get("x-content-type-options"), "nosniff");
      await res.body?.cancel();
    }
    for (const contentType of ["image/jpeg", "application/pdf"]) {
      const res = await fetch((await assetPath(contentType)).url);
      assert.equal(res.status, 200);
      assert.equal(res.headers.get("content-security-policy"), null, contentType);
      assert.equal(res.headers.get("x-content-type-options"), "nosniff");
      await res.body?.cancel();
    }
  } finally {
    await sql`delete from public.content_assets where id = any(${made}::text[])`;
    await sql`delete from public.storage_objects where bucket = 'media' and key like 'media/guardprobe%'`;
  }
});
