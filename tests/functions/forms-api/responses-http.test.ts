// Responses over HTTP: what the form page stores as a visitor goes (landing, hidden fields, metadata,
// answers checked per type, the slides reached, submission with path, score and ending), every
// argument of the responses list, deletion with files, the signed file redirect, and insights.
import assert from "node:assert/strict";
import { test } from "../../helpers/test.ts";
import { testHost } from "../../helpers/host.ts";
import { formsApi, makeForm, respond, SURVEY, uniqueAddress, visit } from "./support.ts";

const host = await testHost();
const api = formsApi(host, await host.key("forms"));
const PHONE_UA = "Mozilla/5.0 (iPhone; CPU iPhone OS 17_0 like Mac OS X) AppleWebKit/605.1.15 Mobile/15E148";

test("landing stores hidden fields (query and hash, without the embed SDK's parameters) and metadata", async () => {
  const slug = await makeForm(host, "land", SURVEY);
  const v = await visit(host, slug, {
    search:
      "?utm_source=news&typeform-embed-id=123&typeform-embed=embed-widget&embed-hide-footer=true&disable-tracking=true",
    hash: "#member=alice&empty=",
    userAgent: PHONE_UA,
    referer: "https://parent.example/page",
  });
  const [row] = await host.ctx
    .sql`select hidden, metadata, platform, landed_at, submitted_at from public.form_responses where token = ${v.token}`;
  assert.deepEqual(row.hidden, { utm_source: "news", member: "alice" });
  assert.equal(row.metadata.platform, "phone");
  assert.equal(row.metadata.browser, "touch");
  assert.equal(row.metadata.user_agent, PHONE_UA);
  assert.equal(row.metadata.referer, "https://parent.example/page");
  assert.match(row.metadata.network_id, /^[0-9a-f]{10}$/);
  assert.equal(row.submitted_at, null);

  const declared = await makeForm(host, "land", SURVEY, { hidden: ["member"] });
  const w = await visit(host, declared, { search: "?utm_source=x&member=bob" });
  const [d] = await host.ctx.sql`select hidden from public.form_responses where token = ${w.token}`;
  assert.deepEqual(d.hidden, { member: "bob" }, "a form that declares hidden fields keeps only those");
});

test("answers are checked per question type; the refusal names the question", async () => {
  const slug = await makeForm(host, "check", SURVEY);
  const v = await visit(host, slug);
  const bad: [string, unknown][] = [
    ["mail", "not-an-email"],
    ["site", "no spaces allowed.com x"],
    ["tel", "12"],
    ["age", 131],
    ["age", "many"],
    ["stars", 6],
    ["scale", 11],
    ["color", "Green"],
    ["color", ["red", "blue"]],
    ["langs", [{ other: "x".repeat(1001) }]],
    ["pick", "Gamma"],
    ["when", "2024-02-30"],
    ["doc", "a file name"],
    ["nope", "x"],
  ];
  for (const [ref, value] of bad) {
    const res = await v.patch({ answers: { [ref]: value } });
    const body = await res.json();
    assert.equal(res.status, 400, `${ref}=${JSON.stringify(value)}`);
    assert.equal(body.code, "VALIDATION_ERROR");
    assert.equal(body.details[0].field, ref);
  }
  const ok = await v.patch({
    answers: {
      name: " Ann ",
      mail: "ann@example.com",
      site: "example.com",
      tel: "+49 30 1234567",
      age: "42",
      stars: 4,
      scale: 0,
      color: "blue",
      langs: ["deno", { other: "Zig" }],
      pick: "Beta",
      when: "2024-02-29",
    },
    slide: "group-2",
  });
  assert.equal(ok.status, 200, await ok.clone().text());
  await ok.body?.cancel();
  const [row] = await host.ctx
    .sql`select answers, seen, last_slide from public.form_responses where token = ${v.token}`;
  assert.equal(row.answers.name.value, "Ann");
  assert.equal(row.answers.site.value, "https://example.com");
  assert.equal(row.answers.age.value, 42);
  assert.deepEqual(row.answers.color.value, { id: "blue", ref: "blue", label: "Blue" });
  assert.deepEqual(row.answers.langs.value, {
    ids: ["deno"],
    refs: ["deno"],
    labels: ["Deno", "Zig"],
    other: "Zig",
  });
  assert.deepEqual(row.seen, ["group-2"]);
  assert.equal(row.last_slide, "group-2");
  const cleared = await v.patch({ answers: { mail: null } });
  assert.equal(cleared.status, 200);
  await cleared.body?.cancel();
  const [after] = await host.ctx.sql`select answers from public.form_responses where token = ${v.token}`;
  assert.ok(!("mail" in after.answers), "null clears an answer");

  const unknown = await fetch(`${host.baseUrl}/to/${slug}/responses/AAAAAAAAAAAAAAAAAAAAAAAA`, {
    method: "PATCH",
    body: "{}",
  });
  assert.equal(unknown.status, 404);
  assert.equal((await unknown.json()).code, "NOT_FOUND");
  const notJson = await fetch(`${host.baseUrl}/to/${slug}/responses/${v.token}`, {
    method: "PATCH",
    body: "{oops",
  });
  assert.equal((await notJson.json()).code, "VALIDATION_ERROR");
  const notObject = await fetch(`${host.baseUrl}/to/${slug}/responses/${v.token}`, {
    method: "PATCH",
    body: "[]",
  });
  const refused = await notObject.json();
  assert.deepEqual([notObject.status, refused.code, refused.description], [
    400,
    "VALIDATION_ERROR",
    "The body must be a JSON object.",
  ]);
});

test("submission: required answers on the path, the jump decides the ending, the score counts, answers off the path go", async () => {
  const slug = await makeForm(host, "submit", SURVEY);
  const missing = await visit(host, slug);
  const refused = await missing.submit({ mail: "a@b.co" });
  assert.equal(refused.status, 400);
  assert.equal((await refused.json()).details[0].field, "name");

  const vip = await visit(host, slug);
  const res = await vip.submit({ name: "Ann", stars: 5, color: "Blue" });
  assert.equal(res.status, 200);
  const body = await res.json();
  assert.deepEqual(body, { response_id: vip.token, score: 2, ending: { id: "vip", ref: "vip" } });
  const again = await vip.submit({});
  assert.equal(again.status, 400, "a response is submitted once");
  await again.body?.cancel();

  const plain = await visit(host, slug);
  await (await plain.patch({ answers: { note: "reached slide three" } })).body?.cancel();
  const done = await (await plain.submit({ name: "Bob", stars: 3, color: "Red" })).json();
  assert.deepEqual(done.ending, { id: "default_tys", ref: "default_tys" });
  assert.equal(done.score, 0);
  const [row] = await host.ctx
    .sql`select answers, seen, submitted_at, at from public.form_responses where token = ${plain.token}`;
  assert.ok(row.submitted_at);
  assert.equal(row.at.getTime(), row.submitted_at.getTime());
  assert.deepEqual(row.seen, ["group-1", "group-2", "group-3"]);
  const [vipRow] = await host.ctx
    .sql`select answers, seen from public.form_responses where token = ${vip.token}`;
  assert.deepEqual(vipRow.seen, ["group-1", "group-2"], "the VIP jump skipped slide three");
});

test("the response list: item shape and answers of every type in field order", async () => {
  const slug = await makeForm(host, "shape", SURVEY);
  const v = await visit(host, slug, { search: "?ref=mail", userAgent: PHONE_UA });
  await (await v.upload("doc", "notes 1.txt", new TextEncoder().encode("hello file"), "text/plain")).body
    ?.cancel();
  const submitted = await v.submit({
    name: "Ann",
    mail: "ann@example.com",
    site: "https://ann.example",
    tel: "+1 555 0100",
    age: 30,
    stars: 4,
    scale: 7,
    color: "Red",
    langs: ["rust", "deno"],
    pick: "Alpha",
    when: "2024-05-01",
    note: "All good",
  });
  assert.equal(submitted.status, 200, await submitted.clone().text());
  await submitted.body?.cancel();
  // an answer to a question the form no longer has is left out
  await host.ctx
    .sql`update public.form_responses set answers = answers || '{"gone": {"type": "text", "field_type": "short_text", "value": "x"}}' where token = ${v.token}`;

  const { status, body } = await api(`/forms/${slug}/responses`);
  assert.equal(status, 200);
  assert.equal(body.total_items, 1);
  assert.equal(body.page_count, 1);
  const [item] = body.items;
  assert.equal(item.token, v.token);
  assert.equal(item.response_id, v.token);
  assert.equal(item.landing_id, v.token);
  assert.equal(item.response_type, "completed");
  assert.match(item.landed_at, /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}Z$/);
  assert.match(item.submitted_at, /Z$/);
  assert.deepEqual(Object.keys(item.metadata).sort(), [
    "browser",
    "network_id",
    "platform",
    "referer",
    "user_agent",
  ]);
  assert.equal(item.metadata.platform, "phone");
  assert.deepEqual(item.hidden, { ref: "mail" });
  assert.deepEqual(item.calculated, { score: 0 });
  assert.equal(item.variables, undefined, "variables are for quizzes");
  assert.deepEqual(item.ending, { id: "default_tys", ref: "default_tys" });
  assert.deepEqual(item.answers.map((a: { field: { ref: string } }) => a.field.ref), [
    "name",
    "mail",
    "site",
    "tel",
    "age",
    "stars",
    "scale",
    "color",
    "langs",
    "pick",
    "when",
    "doc",
    "note",
  ]);
  const by = Object.fromEntries(item.answers.map((a: { field: { ref: string } }) => [a.field.ref, a]));
  assert.deepEqual(by.name, {
    field: { id: "name", type: "short_text", ref: "name" },
    type: "text",
    text: "Ann",
  });
  assert.equal(by.mail.email, "ann@example.com");
  assert.equal(by.site.url, "https://ann.example");
  assert.equal(by.tel.phone_number, "+1 555 0100");
  assert.equal(by.age.number, 30);
  assert.equal(by.stars.type, "number");
  assert.equal(by.scale.number, 7);
  assert.deepEqual(by.color.choice, { id: "red", ref: "red", label: "Red" });
  assert.deepEqual(by.langs.choices, {
    ids: ["rust", "deno"],
    refs: ["rust", "deno"],
    labels: ["Rust", "Deno"],
  });
  assert.deepEqual(by.pick.choice, { id: "alpha", ref: "alpha", label: "Alpha" });
  assert.equal(by.when.date, "2024-05-01");
  assert.equal(by.doc.type, "file_url");
  assert.equal(
    by.doc.file_url,
    `${host.baseUrl}/api/forms/${slug}/responses/${v.token}/fields/doc/files/notes%201.txt`,
  );

  const quiz = await makeForm(host, "quiz", "q* number: Pick\n  score +3 if q > 1\n", { type: "quiz" });
  await respond(host, quiz, { q: 2 });
  const [quizItem] = (await api(`/forms/${quiz}/responses`)).body.items;
  assert.deepEqual(quizItem.calculated, { score: 3 });
  assert.deepEqual(quizItem.variables, [{ key: "score", type: "number", number: 3 }]);
});

test("the response list's arguments: page_size, sort, since/until, before/after, ids, completed, query, fields, answered_fields", async () => {
  const slug = await makeForm(host, "args", SURVEY);
  const tokens: string[] = [];
  const base = Date.parse("2025-03-01T10:00:00Z");
  for (let i = 0; i < 6; i++) {
    const { token } = await respond(host, slug, {
      name: `Person ${i}`,
      ...(i % 2 ? { note: `harbor tea ${i}` } : {}),
      ...(i === 4 ? { mail: "x@y.zz" } : {}),
    }, { search: `?batch=b${i}` });
    tokens.push(token);
    // distinct, known times: landed i minutes after the base, submitted an hour later, in reverse order
    await host.ctx.sql`update public.form_responses
      set landed_at = ${new Date(base + i * 60_000)}, submitted_at = ${new Date(
      base + 3_600_000 - i * 60_000,
    )},
          at = ${new Date(base + 3_600_000 - i * 60_000)} where token = ${token}`;
  }
  const open = await visit(host, slug);
  await host.ctx.sql`update public.form_responses set landed_at = ${new Date(
    base + 30 * 60_000,
  )}, at = ${new Date(base + 30 * 60_000)} where token = ${open.token}`;
  const ids = async (query: string) => {
    const res = await api(`/forms/${slug}/responses?${query}`);
    assert.equal(res.status, 200, `${query}: ${JSON.stringify(res.body)}`);
    return res.body.items.map((i: { token: string }) => i.token);
  };
  // submitted_at,desc (default): latest submission first; the open response sorts by when it started
  const all = tokens.slice(0, 6);
  const desc = await ids("sort=submitted_at,desc");
  assert.deepEqual(desc.filter((t: string) => t !== open.token), all);
  assert.equal(desc.indexOf(open.token), 6, "started 10:30, earlier than every submission");
  assert.deepEqual(await ids(""), desc, "the default order");
  assert.deepEqual(await ids("sort=submitted_at,asc"), [...desc].reverse());
  assert.deepEqual(await ids("sort=landed_at,asc"), [...tokens.slice(0, 6), open.token]);
  assert.deepEqual(await ids("sort=landed_at,desc"), [open.token, ...tokens.slice(0, 6).reverse()]);

  const two = await api(`/forms/${slug}/responses?page_size=2`);
  assert.equal(two.body.items.length, 2);
  assert.equal(two.body.total_items, 7);
  assert.equal(two.body.page_count, 4);
  // before: the page after the cursor in the default order (older); after: newer
  assert.deepEqual(await ids(`page_size=2&before=${desc[1]}`), desc.slice(2, 4));
  assert.deepEqual(await ids(`page_size=2&after=${desc[4]}&sort=submitted_at,asc`), [desc[3], desc[2]]);
  assert.deepEqual(await ids(`before=${desc[6]}`), []);

  assert.deepEqual(await ids(`since=2025-03-01T10:57:00Z`), all.slice(0, 4));
  assert.deepEqual(await ids(`until=2025-03-01T10:56:00`), [all[4], all[5], open.token]);
  assert.deepEqual(
    await ids(`since=${(base + 3_600_000 - 60_000) / 1000}&until=${(base + 3_600_000) / 1000}`),
    all.slice(0, 2),
    "Unix seconds",
  );

  assert.deepEqual(await ids(`included_response_ids=${tokens[3]},${tokens[1]}`), [tokens[1], tokens[3]]);
  assert.deepEqual(await ids("completed=false"), [open.token]);
  assert.deepEqual(await ids("completed=true"), all);
  assert.equal((await ids("completed=all")).length, 7);
  // the totals of the unfiltered and completed-only lists come from the form's kept counts
  const totalOf = async (query: string) => (await api(`/forms/${slug}/responses?page_size=1&${query}`)).body.total_items;
  assert.deepEqual(
    [await totalOf(""), await totalOf("completed=true"), await totalOf("completed=false"), await totalOf("completed=all")],
    [7, 6, 1, 7],
  );

  assert.deepEqual(await ids("query=harbor"), [tokens[1], tokens[3], tokens[5]]);
  assert.deepEqual(
    await ids("query=HARB"),
    [tokens[1], tokens[3], tokens[5]],
    "a word's beginning, any case",
  );
  assert.deepEqual(await ids("query=tea%203"), [tokens[3]], "every word");
  assert.deepEqual(await ids("query=b2"), [tokens[2]], "hidden values count");
  assert.deepEqual(await ids("query=%3F%3F"), [], "a query without words finds nothing");

  assert.deepEqual(await ids("answered_fields=note"), [tokens[1], tokens[3], tokens[5]]);
  assert.deepEqual(await ids("answered_fields=note,mail"), []);
  assert.deepEqual(await ids("answered_fields=mail,name"), [tokens[4]]);

  const onlyNote = await api(`/forms/${slug}/responses?fields=note&included_response_ids=${tokens[1]}`);
  assert.deepEqual(onlyNote.body.items[0].answers.map((a: { field: { ref: string } }) => a.field.ref), [
    "note",
  ]);

  for (
    const bad of [
      "page_size=0",
      "page_size=1001",
      "page_size=x",
      "since=yesterday",
      "until=2025-13-45",
      "completed=maybe",
      "sort=title,asc",
      "before=nothing-like-it",
      "after=nope",
      `before=${tokens[0]}&after=${tokens[1]}`,
    ]
  ) {
    const res = await api(`/forms/${slug}/responses?${bad}`);
    assert.equal(res.status, 400, bad);
    assert.equal(res.body.code, "VALIDATION_ERROR", bad);
  }
  assert.equal((await api(`/forms/${slug}/responses?page_size=1000`)).status, 200);
});

test("query finds an e-mail address, a web address, a file name or a number with a point, whole or by any of its parts", async () => {
  const slug = await makeForm(host, "words", SURVEY);
  const v = await visit(host, slug);
  const upload = await v.upload("doc", "report-2024.pdf", new TextEncoder().encode("%PDF"));
  assert.ok(upload.ok, await upload.clone().text());
  await upload.body?.cancel();
  const submitted = await v.submit({
    name: "Ann O'Neil",
    mail: "ann.lee@example.com",
    site: "https://ada.example/about",
    age: 42.5,
    note: "see version 1.2.3",
  });
  assert.equal(submitted.status, 200, await submitted.clone().text());
  await submitted.body?.cancel();
  const other = await respond(host, slug, { name: "Bo", mail: "bo@elsewhere.org", note: "nothing here" });
  const found = async (query: string) =>
    (await api(`/forms/${slug}/responses?query=${encodeURIComponent(query)}`)).body.items.map((
      i: { token: string },
    ) => i.token);
  for (
    const query of [
      "ann.lee@example.com",
      "example.com",
      "lee",
      "ada.example",
      "https://ada.example/about",
      "about",
      "42.5",
      "1.2.3",
      "report-2024.pdf",
      "pdf",
      "O'Neil",
      "neil",
    ]
  ) {
    assert.deepEqual(await found(query), [v.token], query);
  }
  assert.deepEqual(await found("bo@elsewhere.org"), [other.token]);
  assert.deepEqual(await found("example.org"), [], "every word of the query must be there");
});

test("deleting responses removes them, their answers and their files; the list argument is required", async () => {
  const slug = await makeForm(host, "del", SURVEY);
  const a = await visit(host, slug);
  await (await a.upload("doc", "a.bin", new Uint8Array([1, 2, 3]))).body?.cancel();
  await (await a.submit({ name: "A" })).body?.cancel();
  const b = await respond(host, slug, { name: "B" });
  const c = await respond(host, slug, { name: "C" });
  const [stored] = await host.ctx
    .sql`select count(*)::int as n from public.storage_objects where bucket = 'form-uploads' and key like ${`${slug}/${a.token}/%`}`;
  assert.equal(stored.n, 1);

  assert.equal((await api(`/forms/${slug}/responses`, { method: "DELETE" })).body.code, "VALIDATION_ERROR");
  const res = await api(`/forms/${slug}/responses?included_tokens=${a.token},${b.token}`, {
    method: "DELETE",
  });
  assert.equal(res.status, 204);
  const left = await api(`/forms/${slug}/responses`);
  assert.deepEqual(left.body.items.map((i: { token: string }) => i.token), [c.token]);
  const [gone] = await host.ctx
    .sql`select count(*)::int as n from public.storage_objects where bucket = 'form-uploads' and key like ${`${slug}/${a.token}/%`}`;
  assert.equal(gone.n, 0, "the file went with its response");
  assert.equal(
    (await api(`/forms/${slug}/responses?included_response_ids=${c.token}`, { method: "DELETE" })).status,
    204,
  );
  assert.equal((await api(`/forms/${slug}/responses`)).body.total_items, 0);
});

test("a file answer: 302 to a signed address valid for an hour; forged, expired or wrong addresses are refused", async () => {
  const slug = await makeForm(host, "file", SURVEY);
  const v = await visit(host, slug);
  const bytes = new TextEncoder().encode("the file's bytes");
  const up = await v.upload("doc", "report ä.txt", bytes, "text/plain");
  assert.equal(up.status, 201);
  assert.deepEqual(await up.json(), { name: "report ä.txt", size: bytes.length });
  await (await v.submit({ name: "F" })).body?.cancel();

  const key = await host.key("forms");
  const path = `/api/forms/${slug}/responses/${v.token}/fields/doc/files/${
    encodeURIComponent("report ä.txt")
  }`;
  const redirect = await fetch(`${host.baseUrl}${path}`, {
    headers: { authorization: `Bearer ${key}` },
    redirect: "manual",
  });
  assert.equal(redirect.status, 302);
  const location = new URL(redirect.headers.get("location")!);
  await redirect.body?.cancel();
  const expires = Number(location.searchParams.get("expires"));
  const inAnHour = Date.now() / 1000 + 3600;
  assert.ok(Math.abs(expires - inAnHour) < 30, "expires one hour from now");
  assert.match(location.searchParams.get("signature")!, /^[0-9a-f]{64}$/);

  const file = await fetch(location);
  assert.equal(file.status, 200);
  assert.equal(file.headers.get("content-type"), "text/plain");
  assert.deepEqual(new Uint8Array(await file.arrayBuffer()), bytes);

  const forged = new URL(location);
  forged.searchParams.set("signature", "0".repeat(64));
  const late = new URL(location);
  late.searchParams.set("expires", String(Math.floor(Date.now() / 1000) - 10));
  const unsigned = new URL(location);
  unsigned.search = "";
  for (const url of [forged, late, unsigned]) {
    const res = await fetch(url);
    assert.equal(res.status, 403);
    assert.equal((await res.json()).code, "FORBIDDEN");
  }
  const wrongName = await fetch(
    `${host.baseUrl}/api/forms/${slug}/responses/${v.token}/fields/doc/files/other.txt`,
    { headers: { authorization: `Bearer ${key}` }, redirect: "manual" },
  );
  assert.equal(wrongName.status, 404);
  await wrongName.body?.cancel();
  const tooBig = await (await visit(host, slug)).upload(
    "doc",
    "big.bin",
    new Uint8Array(10 * 1024 * 1024 + 1),
  );
  assert.equal(tooBig.status, 413);
  assert.equal((await tooBig.json()).code, "PAYLOAD_TOO_LARGE");
  const empty = await (await visit(host, slug)).upload("doc", "empty.bin", new Uint8Array(0));
  assert.equal((await empty.json()).code, "VALIDATION_ERROR");
  const notFile = await fetch(`${host.baseUrl}/to/${slug}/responses/${v.token}/files/name`, {
    method: "POST",
    body: "x",
  });
  assert.equal(notFile.status, 404);
  await notFile.body?.cancel();
});

test("insights: views and dropoffs per field, visits per platform and overall, completion rate, average time", async () => {
  const slug = await makeForm(host, "ins", SURVEY);
  // a phone visitor who only landed; one who reached slide two and left; two desktop completions
  await visit(host, slug, { userAgent: PHONE_UA, address: uniqueAddress() });
  const left = await visit(host, slug, { userAgent: PHONE_UA, address: uniqueAddress() });
  await (await left.patch({ slide: "group-1" })).body?.cancel();
  await (await left.patch({ slide: "group-2" })).body?.cancel();
  const address = uniqueAddress();
  const one = await respond(host, slug, { name: "A", stars: 5 }, { address }); // the VIP jump: slides one and two
  const two = await respond(host, slug, { name: "B" }, { address });
  await host.ctx
    .sql`update public.form_responses set submitted_at = landed_at + interval '40 seconds' where token = ${one.token}`;
  await host.ctx
    .sql`update public.form_responses set submitted_at = landed_at + interval '20 seconds' where token = ${two.token}`;

  const { status, body } = await api(`/insights/${slug}/summary`);
  assert.equal(status, 200);
  const field = (ref: string) => body.fields.find((f: { ref: string }) => f.ref === ref);
  assert.deepEqual(Object.keys(field("name")).sort(), ["dropoffs", "id", "ref", "title", "type", "views"]);
  assert.deepEqual([field("name").views, field("name").dropoffs], [3, 0]);
  assert.deepEqual([field("stars").views, field("stars").dropoffs], [3, 1]);
  assert.deepEqual([field("note").views, field("note").dropoffs], [1, 0]);
  assert.equal(body.fields.length, 13);
  assert.deepEqual(body.form.summary, {
    responses_count: 2,
    total_visits: 4,
    unique_visits: 3,
    completion_rate: 50,
    average_time: 30,
  });
  const phone = body.form.platforms.find((p: { platform: string }) => p.platform === "phone");
  const desktop = body.form.platforms.find((p: { platform: string }) => p.platform === "desktop");
  assert.deepEqual(phone, {
    platform: "phone",
    responses_count: 0,
    total_visits: 2,
    unique_visits: 2,
    completion_rate: 0,
    average_time: 0,
  });
  assert.deepEqual(desktop, {
    platform: "desktop",
    responses_count: 2,
    total_visits: 2,
    unique_visits: 1,
    completion_rate: 100,
    average_time: 30,
  });
});

test("insights: a visitor who went back a slide and left dropped off on the furthest slide reached", async () => {
  const slug = await makeForm(host, "back", SURVEY);
  const v = await visit(host, slug);
  for (const slide of ["group-1", "group-2", "group-1"]) {
    const res = await v.patch({ slide });
    assert.equal(res.status, 200);
    await res.body?.cancel();
  }
  // a slide the form does not have changes nothing
  await (await v.patch({ slide: "group-9" })).body?.cancel();
  const { body } = await api(`/insights/${slug}/summary`);
  const field = (ref: string) => body.fields.find((f: { ref: string }) => f.ref === ref);
  assert.deepEqual([field("name").views, field("name").dropoffs], [1, 0], "slide one: went further");
  assert.deepEqual([field("stars").views, field("stars").dropoffs], [1, 1], "slide two: the furthest");
  assert.deepEqual([field("note").views, field("note").dropoffs], [0, 0]);
});

test("the form page's routes are limited per visitor address: 429 TOO_MANY_REQUESTS with Retry-After", async () => {
  const slug = await makeForm(host, "limit", SURVEY);
  const address = uniqueAddress();
  const land = () =>
    fetch(`${host.baseUrl}/to/${slug}/responses`, {
      method: "POST",
      headers: { "content-type": "application/json", "x-forwarded-for": address },
      body: "{}",
    });
  let limited: Response | undefined;
  for (let round = 0; round < 5 && !limited; round++) {
    const answers = await Promise.all(Array.from({ length: 70 }, land));
    limited = answers.find((r) => r.status === 429);
    await Promise.all(answers.filter((r) => r !== limited).map((r) => r.body?.cancel()));
  }
  assert.ok(limited, "some landing was limited");
  assert.ok(Number(limited!.headers.get("retry-after")) >= 1);
  assert.equal((await limited!.json()).code, "TOO_MANY_REQUESTS");
  const other = await visit(host, slug, { address: uniqueAddress() });
  assert.ok(other.token, "another address is not held back");
});

test("a form with is_public false takes no new responses: the page says it is closed and landing is FORBIDDEN", async () => {
  const slug = await makeForm(host, "closed", SURVEY, { is_public: false });
  const page = await fetch(`${host.baseUrl}/to/${slug}`);
  assert.equal(page.status, 403);
  assert.match(await page.text(), /closed to new responses/);
  const land = await fetch(`${host.baseUrl}/to/${slug}/responses`, { method: "POST", body: "{}" });
  assert.equal(land.status, 403);
  assert.equal((await land.json()).code, "FORBIDDEN");
  const missing = await fetch(`${host.baseUrl}/to/no-such-form-here`);
  assert.equal(missing.status, 404);
  assert.match(await missing.text(), /does not exist/);
});

test("an upload's X-File-Name: bad percent-encoding is VALIDATION_ERROR; folders, dots and empty names become a safe name", async () => {
  const slug = await makeForm(host, "upname", SURVEY);
  const v = await visit(host, slug);
  const upload = (name: string) =>
    fetch(`${host.baseUrl}/to/${slug}/responses/${v.token}/files/doc`, {
      method: "POST",
      headers: { "x-file-name": name, "content-type": "text/plain", "x-forwarded-for": uniqueAddress() },
      body: "bytes",
    });
  for (const bad of ["%E0%A4%A", "%", "a%zzb"]) {
    const res = await upload(bad);
    const body = await res.json();
    assert.deepEqual(
      [res.status, body.code, body.details[0].field],
      [400, "VALIDATION_ERROR", "X-File-Name"],
      bad,
    );
  }
  const names: [string, string][] = [
    [".", "upload"],
    ["..", "upload"],
    ["%2E%2E", "upload"],
    ["a%2F..", "upload"],
    ["", "upload"],
    ["%20%20", "upload"],
    ["..%5C..%5Cboot.ini", "boot.ini"],
    ["dir%2Fnotes%0A.txt", "notes.txt"],
    ["r%C3%A9sum%C3%A9.pdf", "résumé.pdf"],
  ];
  for (const [header, stored] of names) {
    const res = await upload(header);
    assert.equal(res.status, 201, header);
    assert.equal((await res.json()).name, stored, header);
    const [row] = await host.ctx.sql`select answers from public.form_responses where token = ${v.token}`;
    assert.equal(row.answers.doc.value.name, stored);
    assert.equal(
      row.answers.doc.value.key,
      `${slug}/${v.token}/doc/${stored}`,
      "the storage key ends in the name",
    );
  }
});

test("since and until outside the years 1 to 9999, or on a day the calendar lacks, are VALIDATION_ERROR naming the argument", async () => {
  const slug = await makeForm(host, "range", SURVEY);
  await respond(host, slug, { name: "Somebody" });
  for (
    const [query, argument] of [
      ["since=0000-01-01", "since"],
      ["since=0000-01-01T00:00:00Z", "since"],
      ["until=0000-12-31T23:59:59", "until"],
      ["since=999999999999", "since"],
      ["until=253402300800", "until"],
      ["until=9999-12-31T23:59:59-05:00", "until"],
      ["since=2024-02-30", "since"],
      ["until=2023-02-29T10:00:00Z", "until"],
    ]
  ) {
    const res = await api(`/forms/${slug}/responses?${query}`);
    assert.equal(res.status, 400, query);
    assert.equal(res.body.code, "VALIDATION_ERROR", query);
    assert.deepEqual([res.body.details[0].field, res.body.details[0].in], [argument, "query"], query);
  }
  // the edges themselves are instants Postgres takes
  for (
    const [query, count] of [
      ["since=0001-01-01", 1],
      ["until=0001-01-01T00:00:00Z", 0],
      ["until=9999-12-31T23:59:59Z", 1],
      ["since=253402300799", 0],
      ["until=2024-02-29", 0],
    ] as const
  ) {
    const res = await api(`/forms/${slug}/responses?${query}`);
    assert.equal(res.status, 200, query);
    assert.equal(res.body.total_items, count, query);
  }
});

test("since and until read as every API reads a date: an hour 24, an offset no zone has or a zone after a bare date are VALIDATION_ERROR, never rolled over", async () => {
  const slug = await makeForm(host, "clock", SURVEY);
  for (
    const query of ["until=2024-03-01T24:00:00Z", "since=2024-03-01T10:00:00+15:00", "since=2024-03-01Z"]
  ) {
    const res = await api(`/forms/${slug}/responses?${query}`);
    assert.equal(res.status, 400, query);
    assert.equal(res.body.code, "VALIDATION_ERROR", query);
    assert.equal(res.body.details[0].field, query.split("=")[0], query);
  }
  const spaced = await api(`/forms/${slug}/responses?since=${encodeURIComponent("2024-03-01 10:00+0200")}`);
  assert.equal(spaced.status, 200, "a space for the T and an offset without its colon still read");
});

test("a NUL character (or a lone surrogate) in an argument, an address or a body is refused in the envelope, never a 5xx", async () => {
  const slug = await makeForm(host, "nul", SURVEY);
  const { token } = await respond(host, slug, { name: "N" });
  for (const argument of ["included_response_ids", "before", "after", "answered_fields", "fields", "query"]) {
    const res = await api(`/forms/${slug}/responses?${argument}=a%00b`);
    assert.deepEqual([res.status, res.body.code, res.body.details[0].field], [
      400,
      "VALIDATION_ERROR",
      argument,
    ]);
  }
  const search = await api(`/forms?search=%00`);
  assert.deepEqual([search.status, search.body.details[0].field], [400, "search"]);
  for (
    const path of [
      `/forms/%00`,
      `/forms/${slug}%00/responses`,
      `/insights/${slug}%00/summary`,
      `/forms/${slug}/webhooks/a%00`,
      `/forms/${slug}/responses/${token}%00/fields/doc/files/x`,
    ]
  ) {
    const res = await api(path);
    assert.deepEqual([res.status, res.body.code], [404, "NOT_FOUND"], path);
  }
  const page = await fetch(`${host.baseUrl}/to/${slug}%00`);
  assert.equal(page.status, 404);
  await page.body?.cancel();

  const v = await visit(host, slug, { search: "?utm_source=a%00b&bad%00name=x" });
  const [landed] = await host.ctx.sql`select hidden from public.form_responses where token = ${v.token}`;
  assert.deepEqual(
    landed.hidden,
    { utm_source: "ab" },
    "hidden values lose the NUL, names with one are dropped",
  );
  const answer = await v.patch({ answers: { name: "a\u0000b" } });
  const refused = await answer.json();
  assert.deepEqual([answer.status, refused.code, refused.details[0].field], [
    400,
    "VALIDATION_ERROR",
    "name",
  ]);
  const slide = await v.patch({ slide: "x\u0000" });
  assert.equal(slide.status, 400);
  await slide.body?.cancel();
  const submit = await v.submit({ name: "a\u0000" });
  assert.equal((await submit.json()).details[0].field, "name");
  // a lone surrogate is text Postgres' jsonb refuses too
  const surrogate = await v.patch({ answers: { name: "half \ud800 a pair" } });
  assert.deepEqual([surrogate.status, (await surrogate.json()).details[0].field], [400, "name"]);
  const [kept] = await host.ctx.sql`select answers from public.form_responses where token = ${v.token}`;
  assert.deepEqual(kept.answers, {}, "nothing was stored");
});

test("addresses under /to that the page does not have are NOT_FOUND, not the keyed API's 401", async () => {
  const slug = await makeForm(host, "nowhere", SURVEY);
  for (
    const [method, path] of [
      ["GET", `/to/${slug}/responses`],
      ["GET", `/to/${slug}/anything`],
      ["GET", `/to/${slug}/responses/AAAAAAAAAAAAAAAAAAAAAAAA`],
      ["DELETE", `/to/${slug}`],
      ["PUT", `/to/${slug}/responses`],
      ["GET", `/to/_/nothing-here.js`],
      ["GET", `/form/${slug}/anything`],
    ]
  ) {
    const res = await fetch(`${host.baseUrl}${path}`, {
      method,
      headers: { "x-forwarded-for": uniqueAddress() },
    });
    const body = await res.json();
    assert.deepEqual([res.status, body.code], [404, "NOT_FOUND"], `${method} ${path}`);
  }
});

test("before and after are Typeform's exclusive filters: before = older, after = newer, in whatever order is chosen", async () => {
  const slug = await makeForm(host, "cursor", SURVEY);
  // seven responses submitted a minute apart: tok1 oldest, tok7 newest
  const tokens: string[] = [];
  for (let i = 1; i <= 7; i++) {
    const { token } = await respond(host, slug, { name: `P${i}` });
    const at = new Date(Date.parse("2025-01-01T00:00:00Z") + i * 60_000);
    await host.ctx.sql`update public.form_responses set landed_at = ${at}, submitted_at = ${at}, at = ${at}
      where token = ${token}`;
    tokens.push(token);
  }
  const [t1, t2, t3, t4, t5, t6, t7] = tokens;
  const ids = async (query: string) =>
    (await api(`/forms/${slug}/responses?${query}`)).body.items.map((i: { token: string }) => i.token);
  // the default order is newest first: before pages on toward older ones, the cursor itself excluded
  assert.deepEqual(await ids(`page_size=2&before=${t5}`), [t4, t3]);
  // after, in that same order, is everything newer than the cursor from the newest down: a filter,
  // not the page adjacent to the cursor (Typeform's meaning, reference/forms.md)
  assert.deepEqual(await ids(`page_size=2&after=${t3}`), [t7, t6]);
  assert.deepEqual(await ids(`after=${t3}`), [t7, t6, t5, t4]);
  // oldest first: after pages on toward newer ones; before is everything older, from the oldest up
  assert.deepEqual(await ids(`page_size=2&after=${t3}&sort=submitted_at,asc`), [t4, t5]);
  assert.deepEqual(await ids(`page_size=2&before=${t5}&sort=submitted_at,asc`), [t1, t2]);
  assert.deepEqual(await ids(`before=${t5}&sort=submitted_at,asc`), [t1, t2, t3, t4]);
  assert.deepEqual(await ids(`after=${t7}`), [], "nothing is newer than the newest");
  assert.deepEqual(await ids(`before=${t1}&sort=submitted_at,asc`), []);
  // total_items counts every response the other arguments leave, cursor or not: the client's auto-pager
  // keeps asking with before=<last> while what it holds is short of total_items
  assert.equal((await api(`/forms/${slug}/responses?page_size=2&before=${t5}`)).body.total_items, 7);
});

test("the response list's page_size defaults to 25", async () => {
  const slug = await makeForm(host, "size", SURVEY);
  await host.ctx.sql`
    insert into public.form_responses (token, form, landed_at, submitted_at, at, answers, search_text)
    select ${slug} || 'tok' || i, ${slug}, now(), now(), now(), '{}'::jsonb, ''
    from generate_series(1, 30) as i`;
  const { body } = await api(`/forms/${slug}/responses`);
  assert.deepEqual([body.items.length, body.total_items, body.page_count], [25, 30, 2]);
});

test("the page carries the form's settings: language, robots, description", async () => {
  const plain = await makeForm(host, "html", SURVEY);
  const html = await (await fetch(`${host.baseUrl}/to/${plain}`)).text();
  assert.match(html, /<html lang="en">/);
  assert.match(html, /<meta name="robots" content="noindex">/, "not indexed unless the form allows it");
  assert.doesNotMatch(html, /<meta name="description"/);
  assert.match(html, /<main id="form" class="form">/, "the page's content is not one live region");
  assert.match(html, /<p id="form-status" class="visually-hidden" role="status" aria-live="polite"><\/p>/);

  const open = await makeForm(host, "html", SURVEY, {
    language: "de",
    meta: { allow_indexing: true, description: 'Tell us <everything> & "more"' },
  });
  const page = await (await fetch(`${host.baseUrl}/to/${open}`)).text();
  assert.match(page, /<html lang="de">/);
  assert.doesNotMatch(page, /name="robots"/);
  assert.match(page, /<meta name="description" content="Tell us &lt;everything&gt; &amp; &quot;more&quot;">/);
});

test("a search's total_items, kept once asked, follows progress saved, submissions and deletions after it", async () => {
  const slug = await makeForm(host, "kept", SURVEY);
  const totals = async () => {
    const [all, done, open] = await Promise.all(
      ["", "&completed=true", "&completed=false"].map(async (more) => {
        const res = await api(`/forms/${slug}/responses?query=harbor&page_size=1${more}`);
        assert.equal(res.status, 200, JSON.stringify(res.body));
        return res.body.total_items;
      }),
    );
    return { all, done, open };
  };
  const first = await respond(host, slug, { name: "Ann", note: "harbor lights" });
  await respond(host, slug, { name: "Bo", note: "a quiet lake" });
  assert.deepEqual(await totals(), { all: 1, done: 1, open: 0 });
  const [kept] = await host.ctx.sql`select count(*)::int as n from public.form_search_counts where form = ${slug}`;
  assert.equal(kept.n, 1, "the search is kept");

  // a visitor still answering: their saved words join the search, their submission moves them
  const v = await visit(host, slug);
  assert.equal((await v.patch({ answers: { name: "Cy", note: "the harbor at dusk" } })).status, 200);
  assert.deepEqual(await totals(), { all: 2, done: 1, open: 1 });
  assert.equal((await v.patch({ answers: { note: "the lake at dusk" } })).status, 200);
  assert.deepEqual(await totals(), { all: 1, done: 1, open: 0 });
  assert.equal((await v.submit({ note: "harbor again" })).status, 200);
  assert.deepEqual(await totals(), { all: 2, done: 2, open: 0 });

  const gone = await api(`/forms/${slug}/responses?included_tokens=${first.token}`, { method: "DELETE" });
  assert.equal(gone.status, 204);
  assert.deepEqual(await totals(), { all: 1, done: 1, open: 0 });
});
