// Form webhooks: the subscription API (tag rule, 201 and 200, the secret never shown, toggles), and
// delivery of completed responses through the outbox to a loopback receiver that checks both
// signatures itself (Typeform-Signature: base64 HMAC keyed by the subscription's secret;
// X-Form-Signature: hex HMAC keyed by FORMS_WEBHOOK_SECRET for the document's own webhook); failures
// recorded on the response and the subscription, and tried again on the next completion.
import assert from "node:assert/strict";
import { test } from "../../helpers/test.ts";
import { testHost } from "../../helpers/host.ts";
import { readConfig } from "../../../shared/config.ts";
import { createContext } from "../../../shared/context.ts";
import { createDispatcher } from "../../../shared/webhooks/dispatcher.ts";
import { DOCUMENT_WEBHOOK_SECRET, formsWebhookAdapter } from "../../../functions/forms-api/webhook-adapter.ts";
import { formsApi, makeForm, respond, visit } from "./support.ts";

const host = await testHost();
const api = formsApi(host, await host.key("forms"));
const FORM = `## Only
name* text: Name?
color choice: Colour?
  - Red
  - Blue
`;

test("subscriptions: PUT makes (201) and updates (200), toggles keep the url, the secret is never shown", async () => {
  const slug = await makeForm(host, "subs", FORM);
  const made = await api(`/forms/${slug}/webhooks/crm`, {
    method: "PUT",
    body: JSON.stringify({ url: "https://hooks.example/a", secret: "s3cret", verify_ssl: true }),
  });
  assert.equal(made.status, 201);
  assert.deepEqual(Object.keys(made.body).sort(), [
    "created_at",
    "enabled",
    "form_id",
    "id",
    "tag",
    "updated_at",
    "url",
    "verify_ssl",
  ]);
  assert.equal(made.body.form_id, slug);
  assert.equal(made.body.enabled, false, "enabled is what was sent (nothing: off)");
  assert.equal(made.body.verify_ssl, true);
  const updated = await api(`/forms/${slug}/webhooks/crm`, {
    method: "PUT",
    body: JSON.stringify({ url: "https://hooks.example/b", enabled: true }),
  });
  assert.equal(updated.status, 200);
  assert.equal(updated.body.id, made.body.id);
  assert.equal(updated.body.url, "https://hooks.example/b");
  const toggled = await api(`/forms/${slug}/webhooks/crm`, {
    method: "PUT",
    body: JSON.stringify({ enabled: false }),
  });
  assert.equal(toggled.status, 200);
  assert.equal(toggled.body.url, "https://hooks.example/b", "a toggle keeps the url");
  assert.equal(toggled.body.enabled, false);
  const [stored] = await host.ctx.sql`select secret from public.form_webhooks where id = ${made.body.id}`;
  assert.equal(stored.secret, "s3cret", "the secret is kept");

  const one = await api(`/forms/${slug}/webhooks/crm`);
  assert.deepEqual(one.body, toggled.body);
  const list = await api(`/forms/${slug}/webhooks`);
  assert.deepEqual(list.body, { items: [toggled.body] });
  for (const body of [made.body, updated.body, one.body, ...list.body.items]) {
    assert.ok(
      !JSON.stringify(body).includes("s3cret") && !("secret" in body),
      "the secret is never returned",
    );
  }
  assert.equal((await api(`/forms/${slug}/webhooks/crm`, { method: "DELETE" })).status, 204);
  assert.equal((await api(`/forms/${slug}/webhooks/crm`, { method: "DELETE" })).body.code, "NOT_FOUND");
  assert.equal((await api(`/forms/${slug}/webhooks/crm`)).body.code, "NOT_FOUND");
});

test("subscription refusals: the tag rule, the url, the body", async () => {
  const slug = await makeForm(host, "subs", FORM);
  const put = (tag: string, body: string) => api(`/forms/${slug}/webhooks/${tag}`, { method: "PUT", body });
  const ok = JSON.stringify({ url: "https://hooks.example/x" });
  assert.equal((await put("a".repeat(64), ok)).status, 201, "64 characters is fine");
  assert.equal((await put("a_b.c-D9", ok)).status, 201);
  const cases: [string, string, string][] = [
    ["a".repeat(65), ok, "tag"],
    ["bad%20tag", ok, "tag"],
    ["bad!", ok, "tag"],
    ["new", JSON.stringify({ enabled: true }), "url"],
    ["new", JSON.stringify({ url: "ftp://hooks.example/x" }), "url"],
    ["new", JSON.stringify({ url: "not a url" }), "url"],
    ["new", JSON.stringify({ url: "https://user:pw@hooks.example/x" }), "url"],
    ["new", JSON.stringify({ url: "https://hooks.example/x", enabled: "yes" }), "enabled"],
    ["new", JSON.stringify({ url: "https://hooks.example/x", verify_ssl: 1 }), "verify_ssl"],
    ["new", JSON.stringify({ url: "https://hooks.example/x", secret: 5 }), "secret"],
    ["new", "{oops", "body"],
    ["new", "[1]", "body"],
  ];
  for (const [tag, body, field] of cases) {
    const res = await put(tag, body);
    assert.equal(res.status, 400, `${tag} ${body}`);
    assert.equal(res.body.code, "VALIDATION_ERROR", `${tag} ${body}`);
    assert.equal(res.body.details?.[0]?.field, field, `${tag} ${body}`);
    assert.equal(res.body.details?.[0]?.in, field === "tag" ? "path" : "body", `${tag} ${body}`);
  }
  assert.equal((await api(`/forms/nope/webhooks/x`, { method: "PUT", body: ok })).body.code, "NOT_FOUND");
});

// ---------------------------------------------------------------------------------- delivery

interface Receipt {
  path: string;
  headers: Headers;
  body: string;
}

/** A loopback receiver that records requests; answers 500 while `failing`. */
function receiver() {
  const receipts: Receipt[] = [];
  let failing = false;
  const server = Deno.serve({ hostname: "127.0.0.1", port: 0, onListen() {} }, async (request) => {
    receipts.push({
      path: new URL(request.url).pathname,
      headers: request.headers,
      body: await request.text(),
    });
    return new Response(failing ? "down" : "ok", { status: failing ? 500 : 200 });
  });
  return {
    url: `http://127.0.0.1:${server.addr.port}`,
    receipts,
    fail(on: boolean) {
      failing = on;
    },
    close: () => server.shutdown(),
  };
}

/** The receiver's own check, written from the vendor's description (not with the code under test). */
async function hmac(secret: string, body: string): Promise<Uint8Array> {
  const key = await crypto.subtle.importKey(
    "raw",
    new TextEncoder().encode(secret),
    { name: "HMAC", hash: "SHA-256" },
    false,
    ["sign"],
  );
  return new Uint8Array(await crypto.subtle.sign("HMAC", key, new TextEncoder().encode(body)));
}
async function typeformSignatureValid(secret: string, receipt: Receipt): Promise<boolean> {
  const expected = `sha256=${btoa(String.fromCharCode(...await hmac(secret, receipt.body)))}`;
  return receipt.headers.get("typeform-signature") === expected;
}
async function formSignatureValid(secret: string, receipt: Receipt): Promise<boolean> {
  const hex = [...await hmac(secret, receipt.body)].map((b) => b.toString(16).padStart(2, "0")).join("");
  return receipt.headers.get("x-form-signature") === `sha256=${hex}`;
}

/** Claims only what is addressed to these receivers: other test files' rows belong to their dispatchers. */
function dispatcher(...receivers: { url: string }[]) {
  return createDispatcher({
    sql: host.ctx.sql,
    clock: host.ctx.clock,
    adapters: { forms: formsWebhookAdapter(host.ctx) },
    allowPrivate: true,
    listen: false,
    targets: receivers.map((r) => `${r.url}/`),
  });
}

test("a completed response is delivered once per enabled subscription and to the document's own webhook, both signed", async () => {
  const rx = receiver();
  try {
    const slug = await makeForm(host, "deliver", FORM, { webhook: `${rx.url}/document` });
    const put = (tag: string, body: object) =>
      api(`/forms/${slug}/webhooks/${tag}`, { method: "PUT", body: JSON.stringify(body) });
    await put("signed", { url: `${rx.url}/signed`, enabled: true, secret: "subscription secret" });
    await put("plain", { url: `${rx.url}/plain`, enabled: true });
    await put("off", { url: `${rx.url}/off`, enabled: false, secret: "x" });

    const { token } = await respond(host, slug, { name: "Ann", color: "Blue" }, {
      search: "?utm_source=mail",
    });
    // the outbox rows were committed with the response
    const rows = await host.ctx.sql`select subscription_id, url, headers from public.webhook_outbox
      where api = 'forms' and body like ${`%"token":"${token}"%`} order by url`;
    assert.deepEqual(rows.map((r) => new URL(r.url).pathname), ["/document", "/plain", "/signed"]);
    assert.ok(rows.every((r) => r.headers["X-Form"] === slug));

    const counts = await dispatcher(rx).runOnce();
    assert.ok(counts.delivered >= 3);
    const got = (path: string) => rx.receipts.find((r) => r.path === path && r.body.includes(token))!;
    const signed = got("/signed"), plain = got("/plain"), doc = got("/document");
    assert.ok(signed && plain && doc, "three deliveries");
    assert.equal(
      rx.receipts.filter((r) => r.path === "/off").length,
      0,
      "a disabled subscription gets nothing",
    );

    assert.ok(await typeformSignatureValid("subscription secret", signed), "Typeform-Signature checks out");
    assert.equal(plain.headers.get("typeform-signature"), null, "no secret, no signature");
    assert.ok(
      await formSignatureValid(await host.ctx.secrets.get(DOCUMENT_WEBHOOK_SECRET), doc),
      "X-Form-Signature checks out",
    );
    for (const r of [signed, plain, doc]) {
      assert.equal(r.headers.get("x-form"), slug);
      assert.match(r.headers.get("content-type") ?? "", /application\/json/);
    }
    const body = JSON.parse(signed.body);
    assert.equal(body.event_type, "form_response");
    assert.equal(typeof body.event_id, "string");
    const fr = body.form_response;
    assert.equal(fr.form_id, slug);
    assert.equal(fr.token, token);
    assert.match(fr.landed_at, /Z$/);
    assert.match(fr.submitted_at, /Z$/);
    assert.deepEqual(fr.hidden, { utm_source: "mail" });
    assert.deepEqual(fr.calculated, { score: 0 });
    assert.deepEqual(fr.ending, { id: "default_tys", ref: "default_tys" });
    assert.equal(fr.definition.id, slug);
    assert.deepEqual(fr.definition.fields.map((f: { ref: string }) => f.ref), ["name", "color"]);
    assert.deepEqual(fr.definition.fields[1].choices.map((c: { label: string }) => c.label), ["Red", "Blue"]);
    assert.deepEqual(fr.answers[1], {
      field: { id: "color", type: "multiple_choice", ref: "color" },
      type: "choice",
      choice: { id: "blue", ref: "blue", label: "Blue" },
    });
    assert.notEqual(JSON.parse(plain.body).event_id, body.event_id, "each delivery has its own event id");

    const [hook] = await host.ctx
      .sql`select last_at, last_error from public.form_webhooks where form = ${slug} and tag = 'signed'`;
    assert.ok(hook.last_at);
    assert.equal(hook.last_error, null);
  } finally {
    await rx.close();
  }
});

test("a failed delivery is recorded on the response and the subscription, and tried again on the next completion", async () => {
  const rx = receiver();
  try {
    const slug = await makeForm(host, "fail", FORM);
    await api(`/forms/${slug}/webhooks/crm`, {
      method: "PUT",
      body: JSON.stringify({ url: `${rx.url}/crm`, enabled: true, secret: "k" }),
    });
    rx.fail(true);
    const first = await respond(host, slug, { name: "First" });
    await dispatcher(rx).runOnce();
    const [failed] = await host.ctx.sql`select meta from public.form_responses where token = ${first.token}`;
    assert.deepEqual(failed.meta.webhook_failed, { crm: true });
    assert.match(failed.meta.webhook_error, /HTTP 500/);
    const [hook] = await host.ctx
      .sql`select last_at, last_error from public.form_webhooks where form = ${slug} and tag = 'crm'`;
    assert.match(hook.last_error, /HTTP 500/);
    assert.ok(hook.last_at);
    const [waiting] = await host.ctx
      .sql`select status, next_attempt_at from public.webhook_outbox where api = 'forms' and body like ${`%${first.token}%`}`;
    assert.equal(waiting.status, "pending", "retried later with backoff");
    assert.ok(waiting.next_attempt_at > new Date());

    rx.fail(false);
    const second = await respond(host, slug, { name: "Second" });
    await dispatcher(rx).runOnce();
    const delivered = rx.receipts.filter((r) => r.path === "/crm" && r.headers.get("typeform-signature"));
    assert.ok(
      delivered.some((r) => r.body.includes(first.token) && r.body.includes('"First"')),
      "the failed one went again",
    );
    assert.ok(delivered.some((r) => r.body.includes(second.token)));
    const [cleared] = await host.ctx.sql`select meta from public.form_responses where token = ${first.token}`;
    assert.deepEqual(cleared.meta, {}, "a delivery that went through clears the failure");
    const [ok] = await host.ctx
      .sql`select last_error from public.form_webhooks where form = ${slug} and tag = 'crm'`;
    assert.equal(ok.last_error, null);
  } finally {
    await rx.close();
  }
});

test("a form without enabled subscriptions writes no outbox rows", async () => {
  const slug = await makeForm(host, "quiet", FORM);
  await api(`/forms/${slug}/webhooks/off`, {
    method: "PUT",
    body: JSON.stringify({ url: "https://hooks.example/off" }),
  });
  const { token } = await respond(host, slug, { name: "Nobody listens" });
  const rows = await host.ctx
    .sql`select 1 from public.webhook_outbox where api = 'forms' and body like ${`%${token}%`}`;
  assert.equal(rows.length, 0);
});

test("one response submitted six times at once completes once: one outbox row per subscription", async () => {
  const slug = await makeForm(host, "race", FORM, { webhook: "https://hooks.example/own" });
  await api(`/forms/${slug}/webhooks/on`, {
    method: "PUT",
    body: JSON.stringify({ url: "https://hooks.example/on", enabled: true }),
  });
  const v = await visit(host, slug);
  const answers = await Promise.all(Array.from({ length: 6 }, () => v.submit({ name: "Racer" })));
  const statuses = answers.map((r) => r.status).sort();
  const bodies = await Promise.all(answers.map((r) => r.json()));
  assert.deepEqual(statuses, [200, 400, 400, 400, 400, 400]);
  assert.ok(
    bodies.filter((b) => b.code).every((b) =>
      b.code === "VALIDATION_ERROR" && /submitted already/.test(b.description)
    ),
  );
  const rows = await host.ctx.sql`select url from public.webhook_outbox
    where api = 'forms' and body like ${`%"token":"${v.token}"%`} order by url`;
  assert.deepEqual(rows.map((r) => r.url), ["https://hooks.example/on", "https://hooks.example/own"]);
});

test("the document's own webhook is signed with FORMS_WEBHOOK_SECRET when the environment sets it", async () => {
  const rx = receiver();
  try {
    const config = readConfig(new Map([["FORMS_WEBHOOK_SECRET", "the deployment's own secret"]]));
    const deployed = createContext(config, {
      sql: host.ctx.sql,
      clock: host.ctx.clock,
      storage: host.ctx.storage,
    });
    const slug = await makeForm(host, "envsecret", FORM, { webhook: `${rx.url}/document` });
    const { token } = await respond(host, slug, { name: "Env" });
    await createDispatcher({
      sql: host.ctx.sql,
      clock: host.ctx.clock,
      adapters: { forms: formsWebhookAdapter(deployed) },
      allowPrivate: true,
      listen: false,
      targets: [`${rx.url}/`],
    }).runOnce();
    const doc = rx.receipts.find((r) => r.path === "/document" && r.body.includes(token));
    assert.ok(doc, "delivered");
    assert.ok(
      await formSignatureValid("the deployment's own secret", doc),
      "keyed by the environment's secret",
    );
    assert.ok(
      !await formSignatureValid(await host.ctx.secrets.get(DOCUMENT_WEBHOOK_SECRET), doc),
      "not by the one the database generated",
    );
  } finally {
    await rx.close();
  }
});

test("subscriptions made through the API are source hand", async () => {
  const slug = await makeForm(host, "hand", FORM);
  await api(`/forms/${slug}/webhooks/crm`, {
    method: "PUT",
    body: JSON.stringify({ url: "https://hooks.example/crm" }),
  });
  await api(`/forms/${slug}/webhooks/crm`, { method: "PUT", body: JSON.stringify({ enabled: true }) });
  const rows = await host.ctx.sql`select tag, source from public.form_webhooks where form = ${slug}`;
  assert.deepEqual(rows.map((r) => [r.tag, r.source]), [["crm", "hand"]]);
});
