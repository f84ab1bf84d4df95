// The real @typeform/api-client against a running host (the demo site is in git mode; the cloud-mode
// writes are in tests/functions/forms-api/typeform-cloud.serial.test.ts): forms, responses (with auto paging over more than
// a thousand), webhooks, insights, workspaces, themes, and the errors the client raises.
import assert from "node:assert/strict";
import { clientConstructor, createClient } from "@typeform/api-client";
import { test } from "../helpers/test.ts";
import { testHost } from "../helpers/host.ts";
import { makeForm, respond, SURVEY, visit } from "../functions/forms-api/support.ts";

const host = await testHost();
const client = createClient({ token: await host.key("forms"), apiBaseUrl: `${host.baseUrl}/api` });

type ClientError = { code: string; message: string; details?: { field?: string; in?: string }[] };
async function apiError(promise: Promise<unknown>): Promise<ClientError> {
  try {
    await promise;
  } catch (error) {
    return error as ClientError;
  }
  throw new Error("expected the client to throw");
}

test("forms.list and forms.get read the site's forms", async () => {
  const list = await client.forms.list({ pageSize: 200 });
  assert.ok(list.total_items! >= 2);
  assert.ok(list.items!.some((f) => f.id === "feedback"));
  const searched = await client.forms.list({ search: "trivia" });
  assert.deepEqual(searched.items!.map((f) => f.id), ["trivia"]);
  const auto = await client.forms.list({ page: "auto" });
  assert.ok(auto.items!.some((f) => f.id === "trivia"));
  const form = await client.forms.get({ uid: "trivia" });
  assert.equal((form as { type?: string }).type, "quiz");
  assert.equal(form.title, "Harbor trivia");
  assert.deepEqual(form.thankyou_screens!.map((t) => t.ref), ["default_tys", "perfect"]);
});

test("errors reach the client as ApiError with the envelope's code and description", async () => {
  const missing = await apiError(client.forms.get({ uid: "no-such-form" }));
  assert.equal(missing.code, "NOT_FOUND");
  assert.match(missing.message, /no-such-form/);
  const gitMode = await apiError(client.forms.create({ data: { title: "New" } }));
  assert.equal(gitMode.code, "METHOD_NOT_ALLOWED");
  const theme = await apiError(client.themes.get({ id: "default" }));
  assert.equal(theme.code, "NOT_FOUND");
  const images = await apiError(client.images.list());
  assert.equal(images.code, "NOT_FOUND");
  const revoked = createClient({ token: await host.revokedKey("forms"), apiBaseUrl: `${host.baseUrl}/api` });
  assert.equal((await apiError(revoked.forms.list())).code, "AUTHENTICATION_FAILED");
  const wrongKind = createClient({ token: await host.key("scheduling"), apiBaseUrl: `${host.baseUrl}/api` });
  assert.equal((await apiError(wrongKind.forms.list())).code, "FORBIDDEN");
  const badSize = await apiError(client.responses.list({ uid: "feedback", pageSize: 5000 }));
  assert.equal(badSize.code, "VALIDATION_ERROR");
  assert.deepEqual(
    badSize.details?.map((d) => [d.field, d.in]),
    [["page_size", "query"]],
    "the client hands on the envelope's details",
  );
  // an instant Postgres cannot hold is the client's mistake, not a server error
  const farPast = await apiError(client.responses.list({ uid: "feedback", since: "0000-01-01T00:00:00Z" }));
  assert.equal(farPast.code, "VALIDATION_ERROR");
  assert.match(farPast.message, /since/);
});

test("responses.list with the client's arguments, and responses.delete", async () => {
  const slug = await makeForm(host, "client", SURVEY);
  const a = await respond(host, slug, { name: "Ann", note: "lighthouse keeper" });
  const b = await respond(host, slug, { name: "Bob", stars: 5 });
  const c = await respond(host, slug, { name: "Cy" });
  const all = await client.responses.list({ uid: slug });
  assert.equal(all.total_items, 3);
  assert.deepEqual(all.items.map((i) => i.response_id), [c.token, b.token, a.token]);
  const older = await client.responses.list({ uid: slug, pageSize: 1, before: c.token });
  assert.deepEqual(older.items.map((i) => i.response_id), [b.token]);
  const ids = await client.responses.list({ uid: slug, ids: [a.token, c.token] });
  assert.deepEqual(ids.items.map((i) => i.response_id), [c.token, a.token]);
  const found = await client.responses.list({
    uid: slug,
    query: "lighthouse",
    completed: true,
    fields: ["note"],
  });
  assert.deepEqual(found.items.map((i) => i.response_id), [a.token]);
  assert.deepEqual(found.items[0].answers!.map((x) => x.field!.ref), ["note"]);
  const asc = await client.responses.list({
    uid: slug,
    sort: "submitted_at,asc",
    since: "2000-01-01T00:00:00Z",
  });
  assert.deepEqual(asc.items.map((i) => i.response_id), [a.token, b.token, c.token]);
  assert.equal(b.result.ending.ref, "vip");

  await client.responses.delete({ uid: slug, ids: [a.token, b.token] });
  assert.deepEqual((await client.responses.list({ uid: slug })).items.map((i) => i.response_id), [c.token]);
});

test("responses.list({ page: 'auto' }) pages past a thousand responses with the before cursor", async () => {
  const slug = await makeForm(host, "many", "name text: Name?\n");
  const base = Date.parse("2024-01-01T00:00:00Z");
  await host.ctx.sql`
    insert into public.form_responses (token, form, landed_at, submitted_at, at, answers, search_text)
    select 'auto' || lpad(i::text, 28, '0'), ${slug}, ${new Date(
    base,
  )}::timestamptz + make_interval(secs => i),
           ${new Date(base)}::timestamptz + make_interval(secs => i + 5), ${new Date(
    base,
  )}::timestamptz + make_interval(secs => i + 5),
           jsonb_build_object('name', jsonb_build_object('type', 'text', 'field_type', 'short_text', 'value', 'n' || i)), 'n' || i
    from generate_series(1, 1203) as i`;
  const all = await client.responses.list({ uid: slug, page: "auto" });
  assert.equal(all.total_items, 1203);
  assert.equal(all.items.length, 1203);
  assert.equal(new Set(all.items.map((i) => i.response_id)).size, 1203, "no response twice");
  assert.equal(all.items[0].response_id, `auto${"1203".padStart(28, "0")}`, "newest first");
  assert.equal(all.items[1202].response_id, `auto${"1".padStart(28, "0")}`);
});

test("webhooks: create, get, list, update, toggle, delete; the secret never comes back", async () => {
  const slug = await makeForm(host, "clienthooks", SURVEY);
  const made = await client.webhooks.create({
    uid: slug,
    tag: "crm",
    url: "https://hooks.example/crm",
    secret: "s",
    verifySSL: true,
  });
  assert.equal(made.tag, "crm");
  assert.equal(made.enabled, false, "the client sends enabled:false unless told");
  assert.equal(made.verify_ssl, true);
  assert.ok(!("secret" in made));
  const on = await client.webhooks.toggle({ uid: slug, tag: "crm", enabled: true });
  assert.equal((on as unknown as { enabled: boolean; url: string }).enabled, true);
  assert.equal((on as unknown as { url: string }).url, "https://hooks.example/crm");
  const updated = await client.webhooks.update({
    uid: slug,
    tag: "crm",
    url: "https://hooks.example/crm2",
    enabled: true,
  });
  assert.equal(updated.url, "https://hooks.example/crm2");
  assert.equal((await client.webhooks.get({ uid: slug, tag: "crm" })).url, "https://hooks.example/crm2");
  assert.deepEqual((await client.webhooks.list({ uid: slug })).items!.map((w) => w.tag), ["crm"]);
  await client.webhooks.delete({ uid: slug, tag: "crm" });
  assert.equal((await apiError(client.webhooks.get({ uid: slug, tag: "crm" }))).code, "NOT_FOUND");
});

test("insights.summary and workspaces", async () => {
  const slug = await makeForm(host, "clientinsights", SURVEY);
  await respond(host, slug, { name: "Ann" });
  const summary = await client.insights.summary({ uid: slug });
  assert.equal(summary.form!.summary!.responses_count, 1);
  assert.equal(summary.form!.summary!.completion_rate, 100);
  assert.equal(summary.fields!.find((f) => f.ref === "name")!.views, 1);
  const workspaces = await client.workspaces.list();
  assert.equal(workspaces.items![0].id, "default");
  assert.equal((await client.workspaces.get({ id: "default" })).name, "Sitewire Demo");
});

test("/me through the client's own request layer; workspaces.list with search, page, pageSize and page 'auto'", async () => {
  const key = await host.key("forms");
  // the client has no /me method: users call it through the same HTTP layer createClient uses
  const http = clientConstructor({ token: key, apiBaseUrl: `${host.baseUrl}/api` });
  const me = await http.request({ method: "get", url: "/me" }) as Record<string, string>;
  assert.deepEqual(Object.keys(me).sort(), ["alias", "email", "language", "user_id"]);
  assert.equal(me.language, "en");
  const [row] = await host.ctx
    .sql`select id, name from public.api_keys where kind = 'forms' and id = ${me.user_id}`;
  assert.ok(row, "user_id names the key that asked");
  assert.equal(me.alias, row.name);

  const found = await client.workspaces.list({ search: "demo", page: 1, pageSize: 5 });
  assert.deepEqual(found.items!.map((w) => w.id), ["default"]);
  assert.equal(found.total_items, 1);
  assert.deepEqual((await client.workspaces.list({ search: "nothing-like-it" })).items, []);
  assert.deepEqual(
    (await client.workspaces.list({ page: 2, pageSize: 1 })).items,
    [],
    "one workspace: page two is empty",
  );
  const auto = await client.workspaces.list({ page: "auto" });
  assert.deepEqual(auto.items!.map((w) => w.id), ["default"]);
  assert.equal((await apiError(client.workspaces.list({ pageSize: 500 }))).code, "VALIDATION_ERROR");
});

test("forms.list with page, pageSize and workspaceId; forms.messages is NOT_FOUND", async () => {
  const prefix = `paged${crypto.randomUUID().slice(0, 8)}`;
  const made: string[] = [];
  for (let i = 0; i < 3; i++) {
    const slug = await makeForm(host, prefix, "q text: Q?\n");
    // distinct creation times: the list is newest first
    await host.ctx.sql`update public.content_entries set created_at = ${new Date(Date.UTC(2025, 0, 1, 0, i))}
      where id = ${`page.tests.${slug}`}`;
    made.push(slug);
  }
  // newest first, a page at a time
  const pages = [];
  for (const page of [1, 2, 3, 4]) {
    pages.push(await client.forms.list({ search: prefix, page, pageSize: 1 }));
  }
  assert.deepEqual(pages.map((p) => p.total_items), [3, 3, 3, 3]);
  assert.deepEqual(pages.map((p) => p.page_count), [3, 3, 3, 3]);
  assert.deepEqual(pages.flatMap((p) => p.items!.map((f) => f.id)), [...made].reverse());
  const inDefault = await client.forms.list({ search: prefix, workspaceId: "default" });
  assert.equal(inDefault.total_items, 3);
  const elsewhere = await client.forms.list({ search: prefix, workspaceId: "another" });
  assert.deepEqual([elsewhere.total_items, elsewhere.items], [0, []]);
  assert.equal((await apiError(client.forms.list({ pageSize: 201 }))).code, "VALIDATION_ERROR");
  assert.equal((await apiError(client.forms.list({ page: 0 }))).code, "VALIDATION_ERROR");

  assert.equal((await apiError(client.forms.messages.get({ uid: made[0] }))).code, "NOT_FOUND");
  assert.equal(
    (await apiError(
      client.forms.messages.update({ uid: made[0], data: { "label.buttonHint.default": "x" } as never }),
    ))
      .code,
    "NOT_FOUND",
  );
});

test("responses.list with after, until and completed false, and since in Unix seconds", async () => {
  const slug = await makeForm(host, "clientargs", SURVEY);
  const a = await respond(host, slug, { name: "Ann" });
  const b = await respond(host, slug, { name: "Bob" });
  const c = await respond(host, slug, { name: "Cy" });
  const open = await visit(host, slug);
  const base = Date.parse("2025-06-01T12:00:00Z");
  for (const [i, token] of [a.token, b.token, c.token].entries()) {
    const at = new Date(base + i * 60_000);
    await host.ctx.sql`update public.form_responses set landed_at = ${new Date(
      base - 60_000,
    )}, submitted_at = ${at}, at = ${at}
      where token = ${token}`;
  }
  await host.ctx.sql`update public.form_responses set landed_at = ${new Date(
    base + 10 * 60_000,
  )}, at = ${new Date(base + 10 * 60_000)}
    where token = ${open.token}`;
  const ids = (list: { items: { response_id?: string }[] }) => list.items.map((i) => i.response_id);

  assert.deepEqual(ids(await client.responses.list({ uid: slug, after: a.token, completed: true })), [
    c.token,
    b.token,
  ]);
  assert.deepEqual(ids(await client.responses.list({ uid: slug, until: "2025-06-01T12:01:00Z" })), [
    b.token,
    a.token,
  ]);
  assert.deepEqual(
    ids(
      await client.responses.list({
        uid: slug,
        since: String((base + 60_000) / 1000),
        until: "2025-06-01T12:05:00",
      }),
    ),
    [c.token, b.token],
  );
  const unfinished = await client.responses.list({ uid: slug, completed: false });
  assert.deepEqual(ids(unfinished), [open.token]);
  assert.equal(unfinished.items[0].submitted_at, null);
  assert.equal((await client.responses.list({ uid: slug })).total_items, 4, "without completed: all of them");
  assert.deepEqual(ids(await client.responses.list({ uid: slug, ids: b.token, fields: "name" })), [b.token]);
  assert.equal(
    (await apiError(client.responses.list({ uid: slug, sort: "title,asc" }))).code,
    "VALIDATION_ERROR",
  );
  assert.equal(
    (await apiError(client.responses.list({ uid: slug, after: "nothing-like-it" }))).code,
    "VALIDATION_ERROR",
  );
  assert.equal((await apiError(client.responses.list({ uid: "no-such-form" }))).code, "NOT_FOUND");
});
