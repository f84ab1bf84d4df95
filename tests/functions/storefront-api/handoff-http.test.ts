// The cart handoff read, the bag's checkout through the payment provider (the local one: its page, the
// signed event back, the order paid), the sign-in link with intent buy, the pages the host serves for
// the store, the pass-through routes, and the rate limit.
import assert from "node:assert/strict";
import { test } from "../../helpers/test.ts";
import { fixedClock } from "../../../shared/clock.ts";
import { ensurePerson, mintPersonJwt, verifyPersonJwt } from "../../../shared/people.ts";
import { signPayload } from "../../../shared/payments/signature.ts";
import { createStorefrontApp } from "../../../functions/storefront-api/app.ts";
import { forwardOverHttp } from "../../../functions/storefront-api/routes/pass-through.ts";
import { createCart, host, variant } from "./support.ts";

const base = host.baseUrl;
const tokenOf = (cart: { id: string }) => cart.id.split("/").pop()!;

async function personToken(email = `buyer-${crypto.randomUUID().slice(0, 8)}@example.org`) {
  const person = await ensurePerson(host.ctx.sql, email);
  return await mintPersonJwt(await host.ctx.secrets.get("jwt"), person, 600);
}

async function checkout(body: unknown, bearer?: string) {
  const res = await fetch(`${base}/api/store/checkout`, {
    method: "POST",
    headers: { "content-type": "application/json", ...(bearer ? { authorization: `Bearer ${bearer}` } : {}) },
    body: typeof body === "string" ? body : JSON.stringify(body),
  });
  return { status: res.status, body: await res.json() };
}

test("GET /api/store/carts/<token> and /api/carts/<token>: the cart's lines for the bag, buyerIdentity and checkoutUrl, no key", async () => {
  const cart = await createCart({
    lines: [{ merchandiseId: variant("TEE-01/m"), quantity: 2 }, { merchandiseId: variant("FG-READ") }, {
      merchandiseId: variant("LP-PRINT/annotated"),
    }],
    buyerIdentity: { email: "b@example.org", countryCode: "AT" },
  });
  const token = tokenOf(cart);
  for (
    const url of [
      `${base}/api/store/carts/${token}`,
      `${base}/api/carts/${token}`,
      `${base}/functions/v1/storefront-api/carts/${token}`,
    ]
  ) {
    const res = await fetch(url);
    assert.equal(res.status, 200, url);
    assert.equal(res.headers.get("cache-control"), "no-store");
    const body = await res.json();
    assert.equal(body.checkoutUrl, `${base}/cart/c/${token}`);
    assert.deepEqual(body.buyerIdentity, { email: "b@example.org", phone: null, countryCode: "AT" });
    assert.equal(body.guestMayBuy, false, "a good and a line read online need the sign-in");
    assert.deepEqual(body.lines[0], {
      sku: "TEE-01",
      variant: "m",
      quantity: 2,
      kind: "good",
      name: "Sitewire Tee",
      label: "M",
      unit_amount: 2500,
      currency: "EUR",
      image: body.lines[0].image,
      handle: "tee",
    });
    assert.match(body.lines[0].image, new RegExp(`^${base}/api/media/`));
    assert.deepEqual(
      body.lines.slice(1).map((l: any) => [l.sku, l.variant, l.kind, l.label, l.unit_amount, l.handle]),
      [["FG-READ", null, "unlock", "Read online", 900, "field-guide"], [
        "LP-PRINT",
        "annotated",
        "print",
        "Softcover / Annotated",
        2400,
        "letterpress-print",
      ]],
    );
  }
});

test("the handoff read says whether a guest may check out: print and download lines only (spec: Cart handoff)", async () => {
  const cases: [string[], boolean][] = [
    [["FG-PRINT", "LP-PRINT/annotated", "FG-PDF", "NG-EPUB"], true],
    [["FG-PRINT"], true],
    [["NG-EPUB"], true],
    [["FG-PRINT", "MUG-01"], false],
    [["POSTER-01/a3"], false],
    [["FG-PDF", "NG-READ"], false],
  ];
  for (const [keys, guestMayBuy] of cases) {
    const cart = await createCart({ lines: keys.map((k) => ({ merchandiseId: variant(k) })) });
    const body = await (await fetch(`${base}/api/store/carts/${tokenOf(cart)}`)).json();
    assert.equal(body.guestMayBuy, guestMayBuy, keys.join(" "));
  }
});

test("the handoff read of an unknown or malformed token is 404 in the store's shape", async () => {
  for (const token of ["00000000000000000000000000000000", "short", "x".repeat(40)]) {
    const res = await fetch(`${base}/api/store/carts/${token}`);
    assert.equal(res.status, 404, token);
    assert.equal(typeof (await res.json()).errors[0].message, "string");
  }
});

test("checkout: a guest may buy printed books and downloads; the answer opens the local provider's checkout page", async () => {
  const r = await checkout({
    lines: [{ sku: "LP-PRINT", variant: "annotated", quantity: 2 }, { sku: "FG-PDF", quantity: 1 }],
    country: "DE",
    email: "guest@example.org",
  });
  assert.equal(r.status, 201, JSON.stringify(r.body));
  assert.match(r.body.url, new RegExp(`^${base}/pay/local/cs_local_`));
  assert.equal(r.body.provider, "local");
  const [order] = await host.ctx.sql<
    any[]
  >`select status, amount_total, currency, country, email, person_id, lines from public.storefront_orders where id = ${r.body.order}`;
  assert.deepEqual([
    order.status,
    Number(order.amount_total),
    order.currency,
    order.country,
    order.email,
    order.person_id,
  ], ["pending", 6000, "EUR", "DE", "guest@example.org", null]);
  assert.deepEqual(order.lines.map((l: any) => [l.sku, l.variant, l.quantity, l.unit_amount]), [[
    "LP-PRINT",
    "annotated",
    2,
    2400,
  ], ["FG-PDF", null, 1, 1200]]);
  const page = await fetch(r.body.url);
  assert.equal(page.status, 200);
  const html = await page.text();
  assert.match(html, /\(Softcover \/ Annotated\)/);
  assert.match(html, /60\.00 EUR/);
});

test("checkout: a guest with a good needs the sign-in (401 SIGN_IN_REQUIRED, intent buy), even beside prints; a person JWT opens it", async () => {
  for (
    const lines of [
      [{ sku: "MUG-01", quantity: 1 }],
      [{ sku: "TEE-01", variant: "l", quantity: 2 }, { sku: "FG-PDF", quantity: 1 }],
      [{ sku: "FG-PRINT", quantity: 1 }, { sku: "POSTER-01", variant: "a3", quantity: 1 }],
    ]
  ) {
    const guest = await checkout({ lines, country: "DE", email: "guest@example.org" });
    assert.equal(guest.status, 401, JSON.stringify(lines));
    assert.equal(guest.body.errors[0].extensions.code, "SIGN_IN_REQUIRED");
    assert.equal(guest.body.intent, "buy");
  }
  const signedIn = await checkout(
    { lines: [{ sku: "MUG-01", quantity: 1 }], country: "DE" },
    await personToken(),
  );
  assert.equal(signedIn.status, 201, JSON.stringify(signedIn.body));
});

test("checkout: a line read online needs a signed-in person (401 SIGN_IN_REQUIRED, intent buy); a person JWT opens it", async () => {
  const lines = [{ sku: "FG-READ", quantity: 1 }];
  const guest = await checkout({ lines });
  assert.equal(guest.status, 401);
  assert.equal(guest.body.errors[0].extensions.code, "SIGN_IN_REQUIRED");
  assert.equal(guest.body.intent, "buy");
  const token = await personToken("reader@example.org");
  const signedIn = await checkout({ lines }, token);
  assert.equal(signedIn.status, 201, JSON.stringify(signedIn.body));
  const [order] = await host.ctx.sql<
    any[]
  >`select person_id, email from public.storefront_orders where id = ${signedIn.body.order}`;
  assert.ok(order.person_id);
  assert.equal(order.email, "reader@example.org");
  const expired = await checkout({ lines }, "eyJhbGciOiJIUzI1NiJ9.eyJzdWIiOiJ4In0.bad");
  assert.equal(expired.status, 401);
  assert.equal(expired.body.errors[0].extensions.code, "UNAUTHORIZED");
});

test("checkout refuses what the bag may not hold: unknown lines, quantities over the cap, a download twice, countries not shipped to", async () => {
  const cases: [unknown, number, string][] = [
    ["{nope", 400, "BAD_REQUEST"],
    [{ lines: "x" }, 400, "BAD_REQUEST"],
    [{ lines: [] }, 400, "EMPTY"],
    [{ lines: [{ sku: "NOPE", quantity: 1 }] }, 400, "INVALID_MERCHANDISE_LINE"],
    [{ lines: [{ sku: "CAP-01", quantity: 1 }] }, 400, "INVALID_MERCHANDISE_LINE"],
    [{ lines: [{ sku: "TEE-01", variant: "m", quantity: 11 }] }, 400, "QUANTITY_INVALID"],
    [{ lines: [{ sku: "FG-PDF", quantity: 2 }] }, 400, "QUANTITY_INVALID"],
    [{ lines: [{ sku: "MUG-01", quantity: 0 }] }, 400, "QUANTITY_INVALID"],
    [{ lines: [{ sku: "FG-PRINT", quantity: 1 }], country: "FR" }, 400, "COUNTRY_NOT_SHIPPED"],
  ];
  for (const [body, status, code] of cases) {
    const r = await checkout(body);
    assert.equal(r.status, status, JSON.stringify(body));
    assert.equal(r.body.errors[0].extensions.code, code, JSON.stringify(body));
  }
  // a download needs no shipping country at all
  assert.equal((await checkout({ lines: [{ sku: "NG-EPUB", quantity: 1 }], country: "FR" })).status, 201);
});

test("paying the local checkout posts a signed event the store verifies: the order is paid once and the handed-off cart is done", async () => {
  const cart = await createCart({ lines: [{ merchandiseId: variant("FG-PRINT") }] });
  const token = tokenOf(cart);
  const r = await checkout({ lines: [{ sku: "FG-PRINT", quantity: 1 }], country: "AT", cart: token });
  assert.equal(r.status, 201);
  const sessionId = r.body.url.split("/").pop();
  const pay = await fetch(`${base}/pay/local/${sessionId}/pay`, {
    method: "POST",
    body: new URLSearchParams({ email: "paid@example.org", country: "AT" }),
    redirect: "manual",
  });
  await pay.body?.cancel();
  assert.equal(pay.status, 303);
  assert.equal(pay.headers.get("location"), `${base}/app?checkout=success`);
  const [order] = await host.ctx.sql<
    any[]
  >`select status, session_id, email, country, paid_at from public.storefront_orders where id = ${r.body.order}`;
  assert.deepEqual([order.status, order.session_id, order.email, order.country], [
    "paid",
    sessionId,
    "paid@example.org",
    "AT",
  ]);
  assert.ok(order.paid_at);
  // the cart the bag came from no longer opens
  assert.equal((await fetch(`${base}/api/store/carts/${token}`)).status, 404);
  // the same event again changes nothing
  const [session] = await host.ctx.sql<
    any[]
  >`select event from public.payment_sessions where id = ${sessionId}`;
  const payload = JSON.stringify(session.event);
  const signature = await signPayload(
    await host.ctx.secrets.get("payments-local-webhook"),
    payload,
    Math.floor(Date.now() / 1000),
  );
  const replay = await fetch(`${base}/api/store/payments/webhook`, {
    method: "POST",
    headers: { "stripe-signature": signature },
    body: payload,
  });
  assert.deepEqual(await replay.json(), { received: true, handled: true });
  const [after] = await host.ctx.sql<
    any[]
  >`select paid_at from public.storefront_orders where id = ${r.body.order}`;
  assert.equal(after.paid_at.getTime(), order.paid_at.getTime());
  // the return page
  const back = await fetch(`${base}/app?checkout=success`);
  assert.equal(back.status, 200);
  assert.match(await back.text(), /Thank you/);
});

test("the payment webhook refuses a bad or missing signature (400) and ignores events of orders it does not have", async () => {
  const payload = JSON.stringify({
    id: "evt_x",
    type: "checkout.session.completed",
    data: {
      object: {
        id: "cs_x",
        client_reference_id: "00000000-0000-0000-0000-000000000000",
        payment_status: "paid",
        metadata: {},
      },
    },
  });
  const unsigned = await fetch(`${base}/api/store/payments/webhook`, { method: "POST", body: payload });
  assert.equal(unsigned.status, 400);
  assert.equal((await unsigned.json()).errors[0].extensions.code, "INVALID_SIGNATURE");
  const forged = await fetch(`${base}/api/store/payments/webhook`, {
    method: "POST",
    headers: { "stripe-signature": await signPayload("wrong", payload, Math.floor(Date.now() / 1000)) },
    body: payload,
  });
  assert.equal(forged.status, 400);
  const signature = await signPayload(
    await host.ctx.secrets.get("payments-local-webhook"),
    payload,
    Math.floor(Date.now() / 1000),
  );
  const foreign = await fetch(`${base}/api/store/payments/webhook`, {
    method: "POST",
    headers: { "stripe-signature": signature },
    body: payload,
  });
  assert.deepEqual(await foreign.json(), { received: true, handled: false });
  const notEvent = "[]";
  const notEventSig = await signPayload(
    await host.ctx.secrets.get("payments-local-webhook"),
    notEvent,
    Math.floor(Date.now() / 1000),
  );
  const bad = await fetch(`${base}/api/store/payments/webhook`, {
    method: "POST",
    headers: { "stripe-signature": notEventSig },
    body: notEvent,
  });
  assert.equal(bad.status, 400);
});

test("the sign-in link (intent buy) goes to the site's log in the embedded default; its token is a person JWT; next stays on the site", async () => {
  const lines: string[] = [];
  const app = createStorefrontApp(host.ctx, {
    forward: () => Promise.resolve(undefined),
    log: (line) => lines.push(line),
  });
  const post = (body: unknown) =>
    app.request(`${base}/sign-in`, {
      method: "POST",
      headers: { "content-type": "application/json" },
      body: JSON.stringify(body),
    });
  const sent = await post({ email: "New.Reader@Example.org", intent: "buy", next: "/cart?intent=buy" });
  assert.equal(sent.status, 202);
  assert.deepEqual(await sent.json(), { sent: true, intent: "buy" });
  assert.equal(lines.length, 1);
  const link = new URL(lines[0].split(": ").pop()!);
  assert.equal(`${link.origin}${link.pathname}${link.search}`, `${base}/cart?intent=buy`);
  const claims = await verifyPersonJwt(new URLSearchParams(link.hash.slice(1)).get("access_token")!, {
    secret: await host.ctx.secrets.get("jwt"),
  });
  assert.equal(claims?.email, "new.reader@example.org");
  assert.ok(
    !JSON.stringify(await (await post({ email: "x@example.org" })).json()).includes("access_token"),
    "the answer never holds the link",
  );

  await post({ email: "y@example.org", next: "//evil.example/steal" });
  assert.match(lines[lines.length - 1], new RegExp(`${base}/cart\\?intent=buy#`));
  const bad = await post({ email: "not-an-address" });
  assert.equal(bad.status, 400);
  assert.equal((await bad.json()).errors[0].extensions.code, "INVALID_EMAIL");
});

test("on Supabase the sign-in (intent buy) asks Supabase Auth for the magic link back to the site; Supabase failing is 502", async () => {
  const asked: { url: URL; headers: Headers; body: any }[] = [];
  let failing = false;
  const supabase = Deno.serve({ hostname: "127.0.0.1", port: 0, onListen: () => {} }, async (req) => {
    asked.push({ url: new URL(req.url), headers: req.headers, body: await req.json() });
    return failing
      ? Response.json({ code: 500, msg: "Error sending magic link" }, { status: 500 })
      : Response.json({});
  });
  try {
    const lines: string[] = [];
    const app = createStorefrontApp({
      ...host.ctx,
      config: {
        ...host.ctx.config,
        supabaseUrl: `http://127.0.0.1:${supabase.addr.port}/`,
        supabaseServiceRoleKey: "service-role-key",
      },
    }, { forward: () => Promise.resolve(undefined), log: (line) => lines.push(line) });
    const post = (body: unknown) =>
      app.request(`${base}/sign-in`, {
        method: "POST",
        headers: { "content-type": "application/json" },
        body: JSON.stringify(body),
      });
    const sent = await post({ email: "Buyer@Example.org", intent: "buy", next: "/cart?intent=buy" });
    assert.equal(sent.status, 202);
    assert.deepEqual(await sent.json(), { sent: true, intent: "buy" });
    assert.equal(asked.length, 1);
    const [otp] = asked;
    assert.equal(otp.url.pathname, "/auth/v1/otp");
    assert.equal(otp.url.searchParams.get("redirect_to"), `${base}/cart?intent=buy`);
    assert.equal(otp.headers.get("apikey"), "service-role-key");
    assert.equal(otp.headers.get("authorization"), "Bearer service-role-key");
    assert.deepEqual(otp.body, { email: "buyer@example.org", create_user: true });
    assert.deepEqual(lines, [], "the link goes by Supabase's mail, not to the log");

    failing = true;
    const failed = await post({ email: "buyer@example.org", intent: "buy" });
    assert.equal(failed.status, 502);
    assert.equal((await failed.json()).errors[0].extensions.code, "SIGN_IN_UNAVAILABLE");
  } finally {
    await supabase.shutdown();
  }
});

test("the handoff page, the bag and the return page: no chrome, never stored, noindex; bag.js is served", async () => {
  const cart = await createCart({ lines: [{ merchandiseId: variant("MUG-01") }] });
  for (
    const path of [
      `/cart/c/${tokenOf(cart)}`,
      `/cart/c/${tokenOf(cart)}?_fd=0`,
      "/cart",
      "/cart?intent=buy",
      "/app?checkout=success",
    ]
  ) {
    const res = await fetch(`${base}${path}`);
    assert.equal(res.status, 200, path);
    assert.match(res.headers.get("content-type")!, /^text\/html/);
    assert.equal(res.headers.get("cache-control"), "no-store");
    assert.equal(res.headers.get("x-robots-tag"), "noindex");
    const html = await res.text();
    assert.match(html, /<meta name="robots" content="noindex">/);
    assert.ok(!/<header|<nav|<footer/.test(html), `${path} has no site chrome`);
  }
  const handoff = await (await fetch(`${base}/cart/c/${tokenOf(cart)}`)).text();
  for (
    const key of [
      "title",
      "lead",
      "signin-title",
      "signin-lead",
      "open-bag",
      "expired-title",
      "expired-lead",
      "to-store",
      "failed-title",
      "failed-lead",
    ]
  ) {
    assert.ok(handoff.includes(`"cart.handoff.${key}"`), key);
  }
  const german = await (await fetch(`${base}/cart/c/${tokenOf(cart)}`, {
    headers: { "accept-language": "de-DE,de;q=0.9" },
  })).text();
  assert.match(german, /Weiter zur Kasse/);
  assert.match(german, /<html lang="de">/, "the page's language is that of its texts");
  assert.match(handoff, /<html lang="en">/);
  // a language the texts lack falls back to English, and the page says English
  const french = await (await fetch(`${base}/cart`, { headers: { "accept-language": "fr-FR" } })).text();
  assert.match(french, /<html lang="en">/);
  assert.match(french, /Your bag/);
  const script = await fetch(`${base}/cart/bag.js`);
  assert.match(script.headers.get("content-type")!, /javascript/);
  assert.match(await script.text(), /window\.sitewireBag = bag/);
  const other = await fetch(`${base}/app`);
  assert.equal(other.status, 404, "/app without a checkout return is not the store's");
  await other.body?.cancel();
});

test("pass-through: the store's address reaches the content API, the forms API and the support desk, each answering in its own style", async () => {
  const fn = `${base}/functions/v1/storefront-api`;
  const content = await fetch(`${fn}/api/content/spaces/${host.space}/environments/master/entries?limit=1`);
  assert.equal(content.status, 200);
  const entries = await content.json();
  assert.equal(entries.sys.type, "Array");
  assert.equal(entries.limit, 1);
  const graphql = await fetch(`${fn}/api/content/content/v1/spaces/${host.space}/environments/master`, {
    method: "POST",
    headers: { "content-type": "application/json" },
    body: JSON.stringify({ query: "{ __typename }" }),
  });
  assert.equal(graphql.status, 200);
  assert.deepEqual(await graphql.json(), { data: { __typename: "Query" } });
  const forms = await fetch(`${fn}/api/forms/forms`);
  assert.equal(forms.status, 401, "the forms API's own refusal");
  assert.equal(typeof (await forms.json()).code, "string");
  const me = await fetch(`${fn}/api/me`);
  assert.equal(me.status, 401);
  await me.body?.cancel();
  // the support desk's application API (spec: "routed through the storefront function by the /api/* rewrite")
  const desk = await fetch(`${fn}/api/desk/api/v1/accounts/1/conversations`);
  assert.equal(desk.status, 401, "the desk's own refusal without a key");
  const refusal = await desk.json();
  assert.deepEqual(refusal.errors, [refusal.error]);
  // /api/workspaces and /api/insights go whole to the forms API too (its own refusal without a token)
  for (const path of ["/api/workspaces", "/api/insights/forms/x/summary"]) {
    const r = await fetch(`${fn}${path}`);
    assert.equal(r.status, 401, path);
    assert.equal(typeof (await r.json()).code, "string", path);
  }
  // the store's public address reaches the content API the same way
  const viaStore = await fetch(
    `${base}/api/store/api/content/spaces/${host.space}/environments/master/entries?limit=2`,
  );
  assert.equal(viaStore.status, 200);
  const listed = await viaStore.json();
  assert.equal(listed.sys.type, "Array");
  assert.equal(listed.limit, 2);
});

test("deployed on its own, the function forwards a pass-through request to the same path on the site's address, body streamed, redirects left to the client", async () => {
  const sent: { url: string; init: RequestInit }[] = [];
  const stub = ((url: string, init: RequestInit) => {
    sent.push({ url, init });
    return Promise.resolve(new Response("forwarded", { status: 207 }));
  }) as unknown as typeof fetch;
  const forward = forwardOverHttp("https://site.example", stub);
  const body = new ReadableStream({
    start(controller) {
      controller.enqueue(new TextEncoder().encode('{"a":1}'));
      controller.close();
    },
  });
  const answer = await forward(
    "forms-api",
    new Request("http://fn.internal/api/forms/forms?page=2", {
      method: "POST",
      headers: { authorization: "Bearer t", "content-type": "application/json" },
      body,
    }),
  );
  assert.equal(answer?.status, 207);
  assert.equal(await answer?.text(), "forwarded");
  assert.equal(sent.length, 1);
  assert.equal(sent[0].url, "https://site.example/api/forms/forms?page=2");
  assert.equal(sent[0].init.method, "POST");
  assert.equal(sent[0].init.redirect, "manual");
  assert.equal(new Headers(sent[0].init.headers).get("authorization"), "Bearer t");
  assert.ok(sent[0].init.body instanceof ReadableStream, "the body is passed on as a stream, not read first");
  assert.equal(await new Response(sent[0].init.body).text(), '{"a":1}');
});

test("pass-through appends the caller's address to X-Forwarded-For, so a client's own entry cannot pose as its address", async () => {
  const seen: (string | null)[] = [];
  const app = createStorefrontApp(host.ctx, {
    forward: (_fn, request) => {
      seen.push(request.headers.get("x-forwarded-for"));
      return Promise.resolve(new Response("{}"));
    },
  });
  // the server entry decided the caller's address; the client's header claims another
  const env = { clientAddress: "192.0.2.7" };
  await (await app.request(`${base}/api/me`, { headers: { "x-forwarded-for": "203.0.113.99" } }, env)).body
    ?.cancel();
  await (await app.request(`${base}/api/me`, {}, env)).body?.cancel();
  assert.deepEqual(seen, ["203.0.113.99, 192.0.2.7", "192.0.2.7"]);
});

test("the handoff read has a per-address limit of its own (no key): 429 with Retry-After in the store's shape", async () => {
  const clock = fixedClock(new Date());
  const app = createStorefrontApp({ ...host.ctx, clock }, { forward: () => Promise.resolve(undefined) });
  const cart = await createCart({ lines: [{ merchandiseId: variant("MUG-01") }] });
  const read = (address: string) =>
    app.request(`${base}/carts/${tokenOf(cart)}`, { headers: { "x-forwarded-for": address } });
  let limited: Response | undefined;
  let answered = 0;
  for (let i = 0; i < 60 && !limited; i++) {
    const res = await read("203.0.113.41");
    if (res.status === 429) limited = res;
    else {
      assert.equal(res.status, 200);
      answered++;
      await res.body?.cancel();
    }
  }
  assert.ok(limited, "expected a 429 within 60 reads in one second");
  assert.equal(answered, 40, "40 reads a second are answered");
  assert.ok(Number(limited.headers.get("retry-after")) >= 1);
  assert.equal((await limited.json()).errors[0].extensions.code, "THROTTLED");
  const other = await read("203.0.113.42");
  assert.equal(other.status, 200, "another address is not held back");
  await other.body?.cancel();
});

test("the rate limit answers 429 with Retry-After in the store's shape", async () => {
  const clock = fixedClock(new Date());
  const app = createStorefrontApp({ ...host.ctx, clock }, { forward: () => Promise.resolve(undefined) });
  const key = await host.key("storefront");
  let limited: Response | undefined;
  for (let i = 0; i < 90 && !limited; i++) {
    const res = await app.request(`${base}/api/2024-10/graphql.json`, {
      method: "POST",
      headers: {
        "content-type": "application/json",
        "x-shopify-storefront-access-token": key,
        "x-forwarded-for": "203.0.113.9",
      },
      body: JSON.stringify({ query: "{ shop { name } }" }),
    });
    if (res.status === 429) limited = res;
    else await res.body?.cancel();
  }
  assert.ok(limited, "expected a 429 within 90 requests in one second");
  assert.ok(Number(limited.headers.get("retry-after")) >= 1);
  assert.equal(limited.headers.get("access-control-allow-origin"), "*", "a browser may read the 429");
  const body = await limited.json();
  assert.equal(body.errors[0].extensions.code, "THROTTLED");
  // another visitor with the same public key is not held back
  const other = await app.request(`${base}/api/2024-10/graphql.json`, {
    method: "POST",
    headers: {
      "content-type": "application/json",
      "x-shopify-storefront-access-token": key,
      "x-forwarded-for": "203.0.113.10",
    },
    body: JSON.stringify({ query: "{ shop { name } }" }),
  });
  assert.equal(other.status, 200);
  await other.body?.cancel();
});
