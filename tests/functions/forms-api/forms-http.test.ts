// The Forms API over HTTP on a running host: the auth matrix of every route, its addresses (/api, /v1,
// the function address), /me and workspaces, the forms list and read, git-mode refusals, the error
// envelope, CORS and the rate limit.
import assert from "node:assert/strict";
import { test } from "../../helpers/test.ts";
import { testHost } from "../../helpers/host.ts";
import { formsApi, makeForm, SURVEY } from "./support.ts";

const host = await testHost();
const slug = await makeForm(host, "http", SURVEY);

function routes(form: string): [string, string, unknown, number][] {
  // method, path, body, status with a forms key (the demo site is in git mode)
  return [
    ["GET", "/me", undefined, 200],
    ["GET", "/workspaces", undefined, 200],
    ["GET", "/workspaces/default", undefined, 200],
    ["GET", "/forms", undefined, 200],
    ["GET", `/forms/${form}`, undefined, 200],
    ["POST", "/forms", { title: "New" }, 405],
    ["PUT", `/forms/${form}`, { title: "New" }, 405],
    ["PATCH", `/forms/${form}`, [], 405],
    ["DELETE", `/forms/${form}`, undefined, 405],
    ["GET", `/forms/${form}/responses`, undefined, 200],
    ["DELETE", `/forms/${form}/responses?included_tokens=nothing`, undefined, 204],
    ["GET", `/forms/${form}/responses/nothing/fields/doc/files/a.txt`, undefined, 404],
    ["GET", `/forms/${form}/webhooks`, undefined, 200],
    ["PUT", `/forms/${form}/webhooks/matrix`, { url: "https://example.com/hook" }, 201],
    ["GET", `/forms/${form}/webhooks/matrix`, undefined, 200],
    ["DELETE", `/forms/${form}/webhooks/matrix`, undefined, 204],
    ["GET", `/insights/${form}/summary`, undefined, 200],
    ["GET", "/themes/default", undefined, 404],
    ["GET", "/images", undefined, 404],
  ];
}

test("every route: 401 without a key or with a revoked one, 403 for another kind, its answer with a forms key", async () => {
  const revoked = await host.revokedKey("forms");
  const delivery = await host.key("delivery");
  const good = await host.key("forms");
  for (const [method, path, body, status] of routes(slug)) {
    const call = (headers: Record<string, string>) =>
      fetch(`${host.baseUrl}/api${path}`, {
        method,
        headers: { ...headers, ...(body === undefined ? {} : { "content-type": "application/json" }) },
        body: body === undefined ? undefined : JSON.stringify(body),
      });
    for (
      const [who, headers, want, code] of [
        ["no key", {}, 401, "AUTHENTICATION_FAILED"],
        ["a revoked key", { authorization: `Bearer ${revoked}` }, 401, "AUTHENTICATION_FAILED"],
        [
          "an unknown key",
          { authorization: "Bearer pk_forms_00000000000000000000000000000000" },
          401,
          "AUTHENTICATION_FAILED",
        ],
        ["a delivery key", { authorization: `Bearer ${delivery}` }, 403, "FORBIDDEN"],
      ] as const
    ) {
      const res = await call(headers);
      assert.equal(res.status, want, `${method} ${path} with ${who}`);
      assert.match(res.headers.get("content-type") ?? "", /application\/json/);
      const json = await res.json();
      assert.equal(json.code, code, `${method} ${path} with ${who}`);
      assert.equal(typeof json.description, "string");
    }
    const res = await call({ authorization: `bearer ${good}` }); // the Typeform client writes the scheme in lower case
    assert.equal(res.status, status, `${method} ${path} with a forms key: ${await res.clone().text()}`);
    if (status >= 400) {
      const json = await res.json();
      assert.equal(json.code, status === 405 ? "METHOD_NOT_ALLOWED" : "NOT_FOUND");
    } else await res.body?.cancel();
  }
});

test("the key may come as ?access_token=, and the API answers at /api, /v1, /functions/v1/forms-api and /functions/api", async () => {
  const key = await host.key("forms");
  for (const prefix of ["/api", "/v1", "/functions/v1/forms-api", "/functions/api"]) {
    const res = await fetch(`${host.baseUrl}${prefix}/forms/${slug}?access_token=${key}`);
    assert.equal(res.status, 200, prefix);
    assert.equal((await res.json()).id, slug);
  }
  const wrong = await fetch(`${host.baseUrl}/v1/forms/${slug}?access_token=pk_forms_nope`);
  assert.equal(wrong.status, 401);
  assert.equal((await wrong.json()).code, "AUTHENTICATION_FAILED");
});

test("/me and the one workspace", async () => {
  const api = formsApi(host, await host.key("forms"));
  const me = await api("/me");
  assert.equal(me.status, 200);
  assert.deepEqual(Object.keys(me.body).sort(), ["alias", "email", "language", "user_id"]);
  assert.equal(me.body.language, "en");
  const list = await api("/workspaces");
  assert.equal(list.body.total_items, 1);
  const [ws] = list.body.items;
  assert.equal(ws.id, "default");
  assert.equal(ws.default, true);
  assert.ok(ws.forms.count >= 3);
  assert.match(ws.forms.href, /\/api\/forms$/);
  // other tests add forms while this one runs: the count may only grow between the two reads
  const one = (await api("/workspaces/default")).body;
  assert.ok(one.forms.count >= ws.forms.count);
  assert.deepEqual({ ...one, forms: { ...one.forms, count: ws.forms.count } }, ws);
  assert.equal((await api("/workspaces?search=nothing-like-it")).body.total_items, 0);
  assert.equal((await api("/workspaces/other")).body.code, "NOT_FOUND");
  assert.equal((await api("/workspaces?page_size=0")).body.code, "VALIDATION_ERROR");
});

test("the forms list: items, search, page and page_size (1 to 200, default 10)", async () => {
  const api = formsApi(host, await host.key("forms"));
  const all = await api("/forms?page_size=200");
  assert.equal(all.status, 200);
  const ids = all.body.items.map((i: { id: string }) => i.id);
  assert.ok(ids.includes("feedback") && ids.includes("trivia") && ids.includes(slug));
  assert.equal(all.body.total_items, all.body.items.length);
  assert.equal(all.body.page_count, 1);
  const item = all.body.items.find((i: { id: string }) => i.id === "trivia");
  assert.deepEqual(Object.keys(item).sort(), [
    "_links",
    "created_at",
    "id",
    "last_updated_at",
    "self",
    "settings",
    "theme",
    "title",
  ]);
  assert.deepEqual(item.settings, { is_public: true, is_trial: false });
  assert.match(item._links.display, /\/to\/trivia$/);
  assert.match(item.created_at, /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}Z$/);

  const byTen = await api("/forms");
  assert.ok(byTen.body.items.length <= 10);
  // paging over forms of this test's own (other test files add forms meanwhile)
  const prefix = `pg${crypto.randomUUID().slice(0, 6)}`;
  const mine = [];
  for (let i = 0; i < 3; i++) mine.push(await makeForm(host, prefix, SURVEY));
  const newestFirst = (await api(`/forms?search=${prefix}&page_size=200`)).body.items.map((
    i: { id: string },
  ) => i.id);
  assert.deepEqual([...newestFirst].sort(), [...mine].sort());
  const one = await api(`/forms?search=${prefix}&page_size=1&page=2`);
  assert.equal(one.body.items.length, 1);
  assert.equal(one.body.items[0].id, newestFirst[1]);
  assert.equal(one.body.total_items, 3);
  assert.equal(one.body.page_count, 3);
  const two = await api(`/forms?search=${prefix}&page_size=2&page=2`);
  assert.deepEqual(two.body.items.map((i: { id: string }) => i.id), [newestFirst[2]]);
  assert.equal(two.body.page_count, 2);
  const past = await api(`/forms?search=${prefix}&page_size=1&page=4`);
  assert.deepEqual(past.body.items, []);
  assert.equal(past.body.total_items, 3);

  const found = await api("/forms?search=harbor%20TRIV");
  assert.deepEqual(found.body.items.map((i: { id: string }) => i.id), ["trivia"]);
  assert.equal(
    (await api("/forms?search=100%25")).body.total_items,
    0,
    "search text is literal (no LIKE wildcards)",
  );
  assert.equal((await api("/forms?workspace_id=elsewhere")).body.total_items, 0);

  for (const bad of ["page_size=0", "page_size=201", "page_size=ten", "page=0", "page=-1"]) {
    const res = await api(`/forms?${bad}`);
    assert.equal(res.status, 400, bad);
    assert.equal(res.body.code, "VALIDATION_ERROR", bad);
    assert.match(res.body.description, /page/);
  }
});

test("a form's definition: canonical groups, refs as ids, addresses, no null anywhere", async () => {
  const api = formsApi(host, await host.key("forms"));
  const { status, body } = await api("/forms/feedback");
  assert.equal(status, 200);
  assert.equal(body.id, "feedback");
  assert.equal(body.type, "form");
  assert.match(body.workspace.href, /\/api\/workspaces\/default$/);
  assert.match(body.theme.href, /\/api\/themes\/default$/);
  assert.match(body._links.display, /\/to\/feedback$/);
  assert.match(body._links.responses, /\/api\/forms\/feedback\/responses$/);
  for (
    const key of [
      "language",
      "progress_bar",
      "meta",
      "is_public",
      "show_progress_bar",
      "show_question_number",
      "autosave_progress",
    ]
  ) {
    assert.ok(key in body.settings, key);
  }
  assert.ok(
    body.fields.every((g: { type: string; id: string }, i: number) =>
      g.type === "group" && g.id === `group-${i + 1}`
    ),
  );
  const fields = body.fields.flatMap((g: { properties: { fields: unknown[] } }) => g.properties.fields);
  assert.ok(fields.every((f: { id: string; ref: string }) => f.id === f.ref));
  assert.equal(body.thankyou_screens[0].id, "default_tys");
  assert.ok(!/:null[,}\]]/.test(JSON.stringify(body)), "no null in a definition");
  for (const k of ["created_at", "last_updated_at", "published_at"]) assert.match(body[k], /Z$/);
});

test("unknown and unpublished forms, unknown routes, themes and images are NOT_FOUND in the envelope", async () => {
  const api = formsApi(host, await host.key("forms"));
  for (
    const path of [
      "/forms/nope",
      "/forms/article-hello",
      "/forms/hello",
      "/forms/nope/responses",
      "/forms/nope/webhooks",
      "/insights/nope/summary",
      "/themes",
      "/themes/abc",
      "/images/abc",
      "/forms/feedback/messages",
    ]
  ) {
    const res = await api(path);
    assert.equal(res.status, 404, path);
    assert.equal(res.body.code, "NOT_FOUND", path);
  }
  const key = await host.key("forms");
  const unknown = await fetch(`${host.baseUrl}/v1/no/such/route`, {
    headers: { authorization: `Bearer ${key}` },
  });
  assert.equal(unknown.status, 404);
  assert.equal((await unknown.json()).code, "NOT_FOUND");
});

test("writes in git mode are METHOD_NOT_ALLOWED before anything else is looked at", async () => {
  const api = formsApi(host, await host.key("forms"));
  const cases: [string, string, string | undefined][] = [
    ["POST", "/forms", "{not json"],
    ["PUT", "/forms/new-one", JSON.stringify({ title: "x", fields: [{ type: "payment" }] })],
    ["PATCH", "/forms/feedback", JSON.stringify([{ op: "replace", path: "/title", value: "x" }])],
    ["DELETE", "/forms/feedback", undefined],
  ];
  for (const [method, path, body] of cases) {
    const res = await api(path, {
      method,
      body,
      headers: body ? { "content-type": "application/json" } : {},
    });
    assert.equal(res.status, 405, `${method} ${path}`);
    assert.equal(res.body.code, "METHOD_NOT_ALLOWED");
    assert.match(res.body.description, /git mode/);
  }
  assert.equal((await api("/forms/feedback")).body.title, "Meetup feedback", "nothing changed");
});

test("CORS is open: preflight allows authorization and content-type and every method", async () => {
  const res = await fetch(`${host.baseUrl}/api/forms`, {
    method: "OPTIONS",
    headers: {
      origin: "https://elsewhere.example",
      "access-control-request-method": "PATCH",
      "access-control-request-headers": "authorization,content-type",
    },
  });
  assert.ok(res.status === 204 || res.status === 200);
  assert.equal(res.headers.get("access-control-allow-origin"), "*");
  assert.match(res.headers.get("access-control-allow-headers") ?? "", /authorization/i);
  assert.match(res.headers.get("access-control-allow-methods") ?? "", /PATCH/);
  await res.body?.cancel();
  const error = await fetch(`${host.baseUrl}/api/forms`, {
    headers: { origin: "https://elsewhere.example" },
  });
  assert.equal(error.headers.get("access-control-allow-origin"), "*", "errors carry CORS too");
  await error.body?.cancel();
});

test("rate limit: headers on every answer, 429 TOO_MANY_REQUESTS with Retry-After past 100 a second", async () => {
  const key = await host.key("forms");
  const first = await fetch(`${host.baseUrl}/api/me`, { headers: { authorization: `Bearer ${key}` } });
  assert.equal(first.headers.get("x-ratelimit-limit"), "100");
  assert.ok(Number(first.headers.get("x-ratelimit-remaining")) < 100);
  await first.body?.cancel();
  let limited: Response | undefined;
  for (let round = 0; round < 5 && !limited; round++) {
    const answers = await Promise.all(
      Array.from(
        { length: 110 },
        () => fetch(`${host.baseUrl}/api/me`, { headers: { authorization: `Bearer ${key}` } }),
      ),
    );
    limited = answers.find((r) => r.status === 429);
    await Promise.all(answers.filter((r) => r !== limited).map((r) => r.body?.cancel()));
  }
  assert.ok(limited, "some request was limited");
  assert.ok(Number(limited!.headers.get("retry-after")) >= 1);
  const body = await limited!.json();
  assert.equal(body.code, "TOO_MANY_REQUESTS");
});

test("a stored document that does not parse answers VALIDATION_ERROR naming the line, never a 5xx", async () => {
  const slug = `broken-${crypto.randomUUID().slice(0, 8)}`;
  const fields = {
    title: { "en-US": `Broken ${slug}` },
    slug: { "en-US": slug },
    kind: { "en-US": "form-slides" },
    bodyMarkdown: { "en-US": "## One\nname text: Name?\nthis line means nothing\n" },
  };
  for (const stage of ["preview", "published"]) {
    await host.ctx.sql`insert into public.content_entries (stage, id, model_id, path, fields)
      values (${stage}, ${`page.tests.${slug}`}, 'page', ${`records/pages/tests/${slug}.md`}, ${
      host.ctx.sql.json(fields)
    })`;
  }
  const api = formsApi(host, await host.key("forms"));
  const res = await api(`/forms/${slug}`);
  assert.equal(res.status, 400);
  assert.equal(res.body.code, "VALIDATION_ERROR");
  assert.match(res.body.description, /^line 3: not a heading/);
  const listed = await api(`/forms?search=${slug}`);
  assert.equal(listed.body.items[0].id, slug, "the list still names it");
});

test("the forms list's page_size defaults to 10", async () => {
  const api = formsApi(host, await host.key("forms"));
  const prefix = `tenner-${crypto.randomUUID().slice(0, 6)}`;
  for (let i = 0; i < 11; i++) await makeForm(host, prefix, "q text: Anything?\n");
  const first = await api(`/forms?search=${prefix}`);
  assert.deepEqual([first.body.items.length, first.body.total_items, first.body.page_count], [10, 11, 2]);
  const second = await api(`/forms?search=${prefix}&page=2`);
  assert.equal(second.body.items.length, 1);
});

test("rate-limit headers come on refusals too: 400, 401 and 404", async () => {
  const key = await host.key("forms");
  const revoked = await host.revokedKey("forms");
  for (
    const [what, path, headers, status] of [
      ["an unknown form", "/api/forms/no-such-form", { authorization: `Bearer ${key}` }, 404],
      ["a bad argument", `/api/forms/${slug}/responses?page_size=0`, { authorization: `Bearer ${key}` }, 400],
      ["a revoked key", "/api/me", { authorization: `Bearer ${revoked}` }, 401],
      ["no key", "/api/me", {}, 401],
    ] as const
  ) {
    const res = await fetch(`${host.baseUrl}${path}`, { headers });
    assert.equal(res.status, status, what);
    for (const header of ["x-ratelimit-limit", "x-ratelimit-remaining", "x-ratelimit-reset"]) {
      assert.match(res.headers.get(header) ?? "", /^\d+$/, `${header} on ${what}`);
    }
    await res.body?.cancel();
  }
});

test("a key by ?access_token= is judged like one in the header: another kind is 403, a revoked one 401", async () => {
  const delivery = await host.key("delivery");
  const revoked = await host.revokedKey("forms");
  for (
    const [token, status, code] of [
      [delivery, 403, "FORBIDDEN"],
      [revoked, 401, "AUTHENTICATION_FAILED"],
    ] as const
  ) {
    const res = await fetch(`${host.baseUrl}/api/forms/${slug}?access_token=${token}`);
    assert.equal(res.status, status);
    assert.equal((await res.json()).code, code);
  }
});
