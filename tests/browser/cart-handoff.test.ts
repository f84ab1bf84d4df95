// The cart handoff page in Chromium: a cart built through the Storefront API is opened at its
// checkoutUrl, lands in the site's bag, and a guest's printed books and downloads go on to the checkout
// (the local payment provider's page), whose return is /app?checkout=success; a good or a line read
// online first opens the bag with the sign-in (intent buy), whose link brings the visitor back signed in
// and on to the checkout; an unknown cart
// shows the expired texts; a checkout that cannot be reached shows the failed texts with the bag.
import assert from "node:assert/strict";
import type { Page } from "playwright-core";
import { launchChromium } from "../helpers/browser.ts";
import { test } from "../helpers/test.ts";
import { createCart, host, variant } from "../functions/storefront-api/support.ts";

const browser = await launchChromium();
globalThis.addEventListener("unload", () => browser.close());

// the host runs in this process: its log is where the embedded default writes sign-in links
const logged: string[] = [];
const log = console.log;
console.log = (...args: unknown[]) => {
  logged.push(args.map(String).join(" "));
  log(...args);
};

async function page(): Promise<Page> {
  const context = await browser.newContext({ locale: "en-US" });
  return await context.newPage();
}

const bag = (p: Page) => p.evaluate(() => JSON.parse(localStorage.getItem("sitewire.bag") || "null"));
const orderOf = async (sessionId: string) =>
  (await host.ctx.sql<{ status: string; person_id: string | null; lines: any[] }[]>`
    select status, person_id, lines from public.storefront_orders where session_id = ${sessionId}`)[0];

test("a guest's cart of printed books and downloads: into the bag, shipping country from the cart, on to checkout, paid, back at /app?checkout=success", async () => {
  const cart = await createCart({
    lines: [{ merchandiseId: variant("LP-PRINT/annotated"), quantity: 2 }, {
      merchandiseId: variant("NG-EPUB"),
    }],
    buyerIdentity: { countryCode: "AT", email: "guest@example.org" },
  });
  const p = await page();
  try {
    await p.goto(cart.checkoutUrl + "?_fd=0");
    await p.waitForURL(/\/pay\/local\/cs_local_/, { timeout: 15_000 });
    const sessionId = new URL(p.url()).pathname.split("/").pop()!;
    const inBag = await bag(p);
    assert.deepEqual(inBag.lines.map((l: any) => [l.sku, l.variant, l.quantity, l.kind]), [[
      "LP-PRINT",
      "annotated",
      2,
      "print",
    ], ["NG-EPUB", null, 1, "download"]]);
    assert.equal(inBag.country, "AT");
    assert.equal(inBag.cart, cart.id.split("/").pop());
    assert.match(await p.textContent("body") ?? "", /57\.00 EUR/);
    assert.equal(await p.inputValue("select[name=country]"), "AT");
    await p.click("button[type=submit]");
    await p.waitForURL(/\/app\?checkout=success$/);
    await p.waitForSelector("body[data-ready=true]");
    assert.match(await p.textContent("h1") ?? "", /Thank you/);
    assert.deepEqual((await bag(p)).lines, [], "the bag is emptied on return");
    const order = await orderOf(sessionId);
    assert.equal(order.status, "paid");
    assert.equal(order.person_id, null);
  } finally {
    await p.context().close();
  }
});

test("the handoff clears what the bag held before: only the cart's lines, its country and its token go on to checkout", async () => {
  const cart = await createCart({
    lines: [{ merchandiseId: variant("FG-PRINT") }],
    buyerIdentity: { countryCode: "DE" },
  });
  const p = await page();
  try {
    // an earlier visit left a good (which a guest may not buy), another country and another cart in the bag
    await p.goto(`${host.baseUrl}/cart`);
    await p.evaluate(() =>
      localStorage.setItem(
        "sitewire.bag",
        JSON.stringify({
          lines: [{
            sku: "MUG-01",
            variant: null,
            quantity: 3,
            kind: "good",
            name: "Mug",
            label: "",
            unit_amount: 1400,
            currency: "EUR",
            image: null,
            handle: "mug",
          }],
          country: "CH",
          cart: "00000000000000000000000000000000",
        }),
      )
    );
    await p.goto(cart.checkoutUrl);
    await p.waitForURL(/\/pay\/local\/cs_local_/, { timeout: 15_000 });
    const inBag = await bag(p);
    assert.deepEqual(inBag.lines.map((l: any) => [l.sku, l.quantity]), [["FG-PRINT", 1]]);
    assert.equal(inBag.country, "DE");
    assert.equal(inBag.cart, cart.id.split("/").pop());
    const order = await orderOf(new URL(p.url()).pathname.split("/").pop()!);
    assert.deepEqual(order.lines.map((l: any) => l.sku), ["FG-PRINT"]);
  } finally {
    await p.context().close();
  }
});

test("a line read online: the bag opens with the sign-in (intent buy); the sign-in link brings the visitor back and on to checkout", async () => {
  const cart = await createCart({
    lines: [{ merchandiseId: variant("FG-READ") }, { merchandiseId: variant("MUG-01") }],
  });
  const p = await page();
  try {
    await p.goto(cart.checkoutUrl);
    await p.waitForURL(/\/cart\?intent=buy$/);
    await p.waitForSelector("[data-signin]:not([hidden])");
    assert.match(await p.textContent("[data-signin] h2") ?? "", /Sign in to buy/);
    assert.deepEqual((await bag(p)).lines.map((l: any) => l.sku), ["FG-READ", "MUG-01"]);
    assert.equal(await p.locator("[data-lines] tbody tr").count(), 2);

    const email = `reader-${crypto.randomUUID().slice(0, 8)}@example.org`;
    await p.fill("input[name=email]", email);
    await p.click("[data-signin-form] button");
    await p.waitForSelector("[data-link-sent]:not([hidden])");
    const line = logged.find((l) => l.includes(`sign-in link for ${email}`));
    assert.ok(line, "the link went to the host's log");
    const link = line!.split(": ").pop()!;

    // the link opens from the mailbox: a new tab of the same browser
    const back = await p.context().newPage();
    await back.goto(link);
    await back.waitForURL(/\/pay\/local\/cs_local_/, { timeout: 15_000 });
    const sessionId = new URL(back.url()).pathname.split("/").pop()!;
    const order = await orderOf(sessionId);
    assert.ok(order.person_id, "the order belongs to the signed-in person");
    assert.deepEqual(order.lines.map((l: any) => l.kind), ["unlock", "good"]);
    const session = await back.evaluate(() => JSON.parse(localStorage.getItem("sitewire.session") || "null"));
    assert.ok(session?.access_token, "the session is kept");
  } finally {
    await p.context().close();
  }
});

test("a guest's cart with a good beside a printed book: the bag opens with the sign-in (intent buy), no checkout", async () => {
  const cart = await createCart({
    lines: [{ merchandiseId: variant("FG-PRINT") }, { merchandiseId: variant("TEE-01/m"), quantity: 2 }],
  });
  const checkouts: string[] = [];
  const p = await page();
  p.on("request", (r) => {
    if (r.url().includes("/api/store/checkout")) checkouts.push(r.url());
  });
  try {
    await p.goto(cart.checkoutUrl);
    await p.waitForURL(/\/cart\?intent=buy$/);
    await p.waitForSelector("[data-signin]:not([hidden])");
    assert.match(await p.textContent("[data-signin] h2") ?? "", /Sign in to buy/);
    assert.deepEqual((await bag(p)).lines.map((l: any) => [l.sku, l.kind]), [["FG-PRINT", "print"], [
      "TEE-01",
      "good",
    ]]);
    assert.deepEqual(checkouts, [], "a guest's good never reaches the checkout");
  } finally {
    await p.context().close();
  }
});

test("a signed-in visitor with a good and a line read online goes straight on to checkout", async () => {
  const cart = await createCart({
    lines: [{ merchandiseId: variant("NG-READ") }, { merchandiseId: variant("MUG-01") }],
  });
  const { ensurePerson, mintPersonJwt } = await import("../../shared/people.ts");
  const person = await ensurePerson(host.ctx.sql, `member-${crypto.randomUUID().slice(0, 8)}@example.org`);
  const token = await mintPersonJwt(await host.ctx.secrets.get("jwt"), person, 600);
  const p = await page();
  try {
    await p.goto(`${host.baseUrl}/cart`);
    await p.evaluate(
      (t) => localStorage.setItem("sitewire.session", JSON.stringify({ access_token: t })),
      token,
    );
    await p.goto(cart.checkoutUrl);
    await p.waitForURL(/\/pay\/local\/cs_local_/, { timeout: 15_000 });
    const order = await orderOf(new URL(p.url()).pathname.split("/").pop()!);
    assert.equal(order.person_id, person.id);
  } finally {
    await p.context().close();
  }
});

test("an unknown cart shows the expired texts and the way to the store; the page is noindex and has no site chrome", async () => {
  const p = await page();
  try {
    await p.goto(`${host.baseUrl}/cart/c/00000000000000000000000000000000`);
    await p.waitForSelector("section[data-state=expired]");
    assert.equal(await p.textContent("h1"), "This cart has expired");
    assert.ok(await p.isVisible("[data-to-store]"));
    assert.equal(await p.getAttribute("meta[name=robots]", "content"), "noindex");
    assert.equal(await p.locator("header, nav, footer").count(), 0);
  } finally {
    await p.context().close();
  }
});

test("when the checkout cannot be reached the page says so and offers the bag, which holds the cart", async () => {
  const cart = await createCart({ lines: [{ merchandiseId: variant("FG-PRINT"), quantity: 3 }] });
  const p = await page();
  try {
    // the network drops the checkout request (the store itself never failed here)
    await p.route("**/api/store/checkout", (route) => route.abort("connectionreset"));
    await p.goto(cart.checkoutUrl);
    await p.waitForSelector("section[data-state=failed]");
    assert.equal(await p.textContent("h1"), "The checkout did not open");
    assert.ok(await p.isVisible("[data-open-bag]"));
    assert.deepEqual((await bag(p)).lines.map((l: any) => [l.sku, l.quantity]), [["FG-PRINT", 3]]);
  } finally {
    await p.context().close();
  }
});

test("a cart without lines opens the empty bag: no checkout is tried and no failure is shown", async () => {
  const cart = await createCart();
  const checkouts: string[] = [];
  const p = await page();
  p.on("request", (r) => {
    if (r.url().includes("/api/store/checkout")) checkouts.push(r.url());
  });
  const states: string[] = [];
  await p.exposeFunction("recordState", (state: string) => states.push(state));
  // every state the handoff section passes through, recorded from the page as it changes
  await p.addInitScript(`
    new MutationObserver(() => {
      const state = document.querySelector("section")?.getAttribute("data-state");
      if (state) window.recordState(state);
    }).observe(document, { subtree: true, attributes: true, attributeFilter: ["data-state"] });
  `);
  try {
    await p.goto(`${host.baseUrl}/cart`);
    await p.evaluate(() =>
      localStorage.setItem("sitewire.bag", JSON.stringify({ lines: [], country: null, cart: null }))
    );
    await p.goto(cart.checkoutUrl);
    await p.waitForURL(/\/cart$/);
    await p.waitForSelector("body[data-ready=true]");
    assert.ok(await p.isVisible("[data-empty]"), "the bag says it is empty");
    assert.deepEqual((await bag(p)).lines, []);
    assert.deepEqual(checkouts, [], "no checkout was tried");
    assert.ok(!states.includes("failed"), `states: ${states.join(", ")}`);
  } finally {
    await p.context().close();
  }
});

test("a cart's country the store does not ship to is not set as the bag's shipping country", async () => {
  const cart = await createCart({
    lines: [{ merchandiseId: variant("FG-PRINT") }],
    buyerIdentity: { countryCode: "FR" },
  });
  const p = await page();
  try {
    await p.goto(cart.checkoutUrl);
    await p.waitForURL(/\/pay\/local\/cs_local_/, { timeout: 15_000 });
    const inBag = await bag(p);
    assert.deepEqual(inBag.lines.map((l: any) => l.sku), ["FG-PRINT"]);
    assert.equal(inBag.country, null, "FR is not among the countries the store ships to");
    // the checkout lets the buyer choose among the store's own countries
    const offered = await p.locator("select[name=country] option").allTextContents();
    assert.ok(!offered.some((c) => c.includes("FR")), offered.join(", "));
  } finally {
    await p.context().close();
  }
});

test("the page speaks the visitor's language where the texts have it", async () => {
  const context = await browser.newContext({
    locale: "de-DE",
    extraHTTPHeaders: { "accept-language": "de-DE,de;q=0.9" },
  });
  const p = await context.newPage();
  try {
    await p.goto(`${host.baseUrl}/cart/c/00000000000000000000000000000000`);
    await p.waitForSelector("section[data-state=expired]");
    assert.equal(await p.textContent("h1"), "Dieser Warenkorb ist abgelaufen");
    assert.equal(await p.getAttribute("html", "lang"), "de", "the page's language is its texts'");
  } finally {
    await context.close();
  }
});
