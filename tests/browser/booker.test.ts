// The booker page in Chromium, embedded by @calcom/embed-core (its published browser bundle, served from
// the npm package to a loopback parent page on another origin): the parent shows and sizes the iframe
// (linkReady, __dimensionChanged), a visitor picks a day and a time and books, and the parent hears
// bookingSuccessfulV2 with the booking.
import assert from "node:assert/strict";
import { launchChromium } from "../helpers/browser.ts";
import { test } from "../helpers/test.ts";
import { testHost } from "../helpers/host.ts";

const host = await testHost();
const bundle = await Deno.readTextFile(
  new URL(
    import.meta.resolve("@calcom/embed-core/package.json").replace(/package\.json$/, "dist/embed/embed.js"),
  ),
).catch(() =>
  Deno.readTextFile(new URL("../../node_modules/@calcom/embed-core/dist/embed/embed.js", import.meta.url))
);

// the embed snippet's contract (what embed.js expects to find): Cal(...) queues its arguments on Cal.q;
// Cal("init", ns, config) makes Cal.ns[ns] with its own queue and queues ["initNamespace", ns]
const parentPage = (origin: string, link: string, config: Record<string, string>, mode = "inline") =>
  `<!doctype html><html><head><meta charset="utf-8"><title>Parent</title></head>
<body><h1>A site that embeds the booker</h1><div id="cal" style="width:800px"></div>
<script>
  window.calEvents = [];
  (function (w, src) {
    const cal = w.Cal = function () {
      const args = arguments;
      if (!cal.loaded) { cal.ns = {}; cal.q = cal.q || []; const s = document.createElement("script"); s.src = src; document.head.appendChild(s); cal.loaded = true; }
      if (args[0] === "init") {
        const ns = args[1];
        if (typeof ns === "string") {
          const api = function () { api.q.push(arguments); };
          api.q = [];
          cal.ns[ns] = cal.ns[ns] || api;
          cal.ns[ns].q.push(args);
          cal.q.push(["initNamespace", ns]);
          return;
        }
      }
      cal.q.push(args);
    };
  })(window, "/embed.js");
  Cal("init", "booker", { origin: ${JSON.stringify(origin)} });
  Cal.ns.booker(${JSON.stringify(mode)}, { elementOrSelector: "#cal", calLink: ${
    JSON.stringify(link)
  }, config: ${JSON.stringify(config)} });
  Cal.ns.booker("on", { action: "*", callback: (e) => window.calEvents.push({ type: e.detail.type, data: e.detail.data }) });
</script></body></html>`;

const parent = Deno.serve({ hostname: "127.0.0.1", port: 0, onListen: () => {} }, (req) => {
  const url = new URL(req.url);
  if (url.pathname === "/embed.js") {
    return new Response(bundle, { headers: { "content-type": "text/javascript" } });
  }
  // the embed's config comes in the parent page's query (?config=<json>), as a site would write it
  const config = JSON.parse(url.searchParams.get("config") ?? "{}");
  // ?mode= is how the site embeds it: inline (the default), modal or floatingButton
  const mode = url.searchParams.get("mode") ?? "inline";
  return new Response(
    parentPage(host.baseUrl, url.searchParams.get("link") ?? "book/intro-call", config, mode),
    {
      headers: { "content-type": "text/html" },
    },
  );
});
const parentUrl = `http://127.0.0.1:${parent.addr.port}/`;
const embedding = (config: Record<string, string>, link = "book/intro-call", mode = "inline") =>
  `${parentUrl}?link=${encodeURIComponent(link)}&config=${
    encodeURIComponent(JSON.stringify(config))
  }&mode=${mode}`;

function browser() {
  return launchChromium();
}

test("embedded with @calcom/embed-core the booker shows, sizes itself and reports a booking (bookingSuccessfulV2)", async () => {
  const b = await browser();
  try {
    const page = await b.newPage();
    await page.goto(embedding({ theme: "dark", month: "2031-06", name: "Embed Visitor" }));
    const iframe = page.locator("iframe.cal-embed");
    await iframe.waitFor({ state: "attached", timeout: 20_000 });
    const src = await iframe.getAttribute("src");
    assert.match(src!, /\/book\/intro-call\/embed\?embed=booker/);
    assert.match(src!, /embedType=inline/);
    const frame = page.frameLocator("iframe.cal-embed");
    await frame.locator("button.day").first().waitFor({ timeout: 20_000 });
    await page.waitForFunction(
      () => (window as any).calEvents.some((e: any) => e.type === "linkReady"),
      undefined,
      { timeout: 20_000 },
    );
    // the parent sized the iframe from __dimensionChanged and made it visible after __iframeReady
    const style = await iframe.evaluate((el: any) => ({
      height: el.style.height,
      visibility: el.style.visibility,
    }));
    assert.match(style.height, /^\d+px$/);
    assert.notEqual(style.visibility, "hidden");
    assert.equal(
      await frame.locator("html").getAttribute("data-theme"),
      "dark",
      "the theme is applied as the page theme",
    );

    await frame.locator("button.day").first().click();
    const time = frame.locator("button.time").first();
    const start = await time.getAttribute("data-start");
    await time.click();
    assert.equal(
      await frame.locator("#f-name").inputValue(),
      "Embed Visitor",
      "prefilled from the embed config",
    );
    await frame.locator("#f-email").fill(`embed-${crypto.randomUUID().slice(0, 8)}@example.com`);
    await frame.locator("#f-notes").fill("Booked through the embed");
    await frame.locator("#submit").click();
    await page.waitForFunction(
      () => (window as any).calEvents.some((e: any) => e.type === "bookingSuccessfulV2"),
      undefined,
      { timeout: 20_000 },
    );
    const events = await page.evaluate(() => (window as any).calEvents);
    const types = events.map((e: any) => e.type);
    for (const t of ["__iframeReady", "__dimensionChanged", "linkReady", "bookingSuccessfulV2"]) {
      assert.ok(types.includes(t), t);
    }
    const done = events.find((e: any) => e.type === "bookingSuccessfulV2").data;
    assert.equal(done.status, "ACCEPTED");
    assert.equal(new Date(done.startTime).getTime(), new Date(start!).getTime());
    assert.equal(done.paymentRequired, false);
    assert.equal(done.isRecurring, false);
    assert.match(done.videoCallUrl, /\/book\/video\//);
    const [row] = await host.ctx.sql<{ status: string; description: string }[]>`
      select status, description from public.scheduling_bookings where uid = ${done.uid}`;
    assert.deepEqual(row, { status: "accepted", description: "Booked through the embed" });
  } finally {
    await b.close();
  }
});

test("the booker page stands alone too: lengths, the visitor's zone, an unknown session is 404", async () => {
  const b = await browser();
  try {
    const page = await b.newPage({ timezoneId: "America/New_York" });
    await page.goto(`${host.baseUrl}/book/intro-call?month=2031-07`);
    await page.locator("button.day").first().waitFor({ timeout: 20_000 });
    assert.equal(await page.locator("#zone").textContent(), "America/New_York");
    assert.deepEqual(await page.locator("#lengths button").allTextContents(), ["15 min", "30 min"]);
    await page.locator("button.day").first().click();
    // Ada's 09:00 in Berlin is 03:00 in New York in July
    assert.equal(await page.locator("button.time").first().textContent(), "03:00 AM");
    const missing = await fetch(`${host.baseUrl}/book/no-such-session`);
    await missing.body?.cancel();
    assert.equal(missing.status, 404);
  } finally {
    await b.close();
  }
});

/** Waits until the parent page heard `type` from the booker; answers its data. */
async function heard(page: import("playwright-core").Page, type: string): Promise<any> {
  await page.waitForFunction(
    (t) => (window as any).calEvents.some((e: any) => e.type === t),
    type,
    { timeout: 20_000 },
  );
  return await page.evaluate((t) => (window as any).calEvents.find((e: any) => e.type === t).data, type);
}

test("embedded, the booking just made is moved and then cancelled (rescheduleBookingSuccessfulV2, bookingCancelled)", async () => {
  const b = await browser();
  try {
    const page = await b.newPage();
    const email = `mover-${crypto.randomUUID().slice(0, 8)}@example.com`;
    await page.goto(embedding({ month: "2032-04", name: "Mover", email }));
    const frame = page.frameLocator("iframe.cal-embed");
    await frame.locator("button.day").first().click({ timeout: 20_000 });
    await frame.locator("button.time").first().click();
    assert.equal(await frame.locator("#f-email").inputValue(), email, "prefilled from the embed config");
    await frame.locator("#submit").click();
    const made = await heard(page, "bookingSuccessfulV2");

    await frame.locator("#to-reschedule").click();
    assert.match(await frame.locator("#notice").textContent() ?? "", /^Rescheduling Intro call/);
    await frame.locator("button.day").nth(1).click();
    const later = frame.locator("button.time").nth(2);
    const newStart = await later.getAttribute("data-start");
    await later.click();
    await frame.locator("#f-reason").fill("A clash");
    await frame.locator("#move-submit").click();
    const moved = await heard(page, "rescheduleBookingSuccessfulV2");
    assert.equal(moved.uid, made.uid, "a native move keeps the uid");
    assert.equal(new Date(moved.startTime).getTime(), new Date(newStart!).getTime());
    assert.equal(moved.status, "ACCEPTED");
    assert.equal(await frame.locator("#done-title").textContent(), "Rescheduled.");

    await frame.locator("#to-cancel").click();
    await frame.locator("#f-cancel-reason").fill("Plans changed");
    await frame.locator("#cancel-submit").click();
    const cancelled = await heard(page, "bookingCancelled");
    assert.equal(cancelled.booking.uid, made.uid);
    assert.equal(cancelled.booking.status, "CANCELLED");
    assert.deepEqual(cancelled.organizer, {
      name: "Ada Example",
      email: "ada@demo.sitewire.dev",
      timeZone: "Europe/Berlin",
    });
    assert.equal(cancelled.eventType.slug, "intro-call");
    assert.equal(await frame.locator("#done-actions").isHidden(), true, "nothing left to move or cancel");
    const [row] = await host.ctx.sql<
      { status: string; start_at: Date; rescheduling_reason: string; cancellation_reason: string }[]
    >`
      select status, start_at, rescheduling_reason, cancellation_reason from public.scheduling_bookings where uid = ${made.uid}`;
    assert.equal(row.status, "cancelled");
    assert.equal(row.start_at.getTime(), new Date(newStart!).getTime());
    assert.equal(row.rescheduling_reason, "A clash");
    assert.equal(row.cancellation_reason, "Plans changed");
  } finally {
    await b.close();
  }
});

test("the embed's rescheduleUid and cancelUid (with the attendee's email) open those screens; another address cannot", async () => {
  const key = await host.key("scheduling");
  const email = `linked-${crypto.randomUUID().slice(0, 8)}@example.com`;
  const made = await (await fetch(`${host.baseUrl}/api/scheduling/v2/bookings`, {
    method: "POST",
    headers: { authorization: `Bearer ${key}`, "content-type": "application/json" },
    body: JSON.stringify({
      start: "2032-05-04T08:00:00.000Z",
      eventTypeSlug: "intro-call",
      attendee: { name: "Linked", email, timeZone: "Europe/Berlin" },
    }),
  })).json();
  const uid = made.data.uid;
  const b = await browser();
  try {
    const stranger = await b.newPage();
    await stranger.goto(embedding({ cancelUid: uid, email: "someone-else@example.com" }));
    const strangerFrame = stranger.frameLocator("iframe.cal-embed");
    await strangerFrame.locator("#page-error").filter({ hasText: /belongs to someone else/ }).waitFor({
      timeout: 20_000,
    });
    assert.equal(await strangerFrame.locator("#cancel").isHidden(), true);

    const page = await b.newPage();
    await page.goto(embedding({ rescheduleUid: uid, email, month: "2032-05" }));
    const frame = page.frameLocator("iframe.cal-embed");
    await frame.locator("#notice").filter({ hasText: /^Rescheduling/ }).waitFor({ timeout: 20_000 });
    await frame.locator("button.day").nth(2).click();
    await frame.locator("button.time").first().click();
    await frame.locator("#move-submit").click();
    const moved = await heard(page, "rescheduleBookingSuccessfulV2");
    assert.equal(moved.uid, uid);

    const other = await b.newPage();
    await other.goto(embedding({ cancelUid: uid, email }));
    const otherFrame = other.frameLocator("iframe.cal-embed");
    await otherFrame.locator("#cancel-submit").click({ timeout: 20_000 });
    assert.equal((await heard(other, "bookingCancelled")).booking.uid, uid);
    const [row] = await host.ctx.sql<{ status: string }[]>`
      select status from public.scheduling_bookings where uid = ${uid}`;
    assert.equal(row.status, "cancelled");
  } finally {
    await b.close();
  }
});

test("a paid session: the visitor pays on the local provider's page and comes back to the booking made", async () => {
  const b = await browser();
  try {
    const page = await b.newPage();
    const email = `payer-${crypto.randomUUID().slice(0, 8)}@example.com`;
    await page.goto(`${host.baseUrl}/book/deep-dive?month=2032-03`);
    assert.equal(await page.locator(".price").textContent(), "€120.00");
    await page.locator("button.day").first().click({ timeout: 20_000 });
    const time = page.locator("button.time").first();
    const start = await time.getAttribute("data-start");
    await time.click();
    await page.locator("#f-name").fill("Paying Visitor");
    await page.locator("#f-email").fill(email);
    assert.equal(await page.locator("#submit").textContent(), "Pay and book");
    await page.locator("#submit").click();
    await page.waitForURL(/\/pay\/local\/cs_local_/, { timeout: 20_000 });
    assert.match(await page.locator("[data-total]").textContent() ?? "", /120\.00 EUR/);
    await page.locator("button", { hasText: /^Pay/ }).click();
    await page.waitForURL(/\/book\/deep-dive\?paid=cs_local_/, { timeout: 20_000 });
    const session = new URL(page.url()).searchParams.get("paid")!;
    await page.locator("#done-title").filter({ hasText: "Paid. The host will confirm your booking." })
      .waitFor({
        timeout: 20_000,
      });
    assert.match(
      await page.locator("#done-when").textContent() ?? "",
      /^Deep dive between Grace Example and Paying Visitor/,
    );
    const [row] = await host.ctx.sql<{ status: string; start_at: Date; attendee_email: string }[]>`
      select status, start_at, attendee_email from public.scheduling_bookings where payment_session_id = ${session}`;
    assert.deepEqual(
      { ...row, start_at: row.start_at.getTime() },
      { status: "pending", start_at: new Date(start!).getTime(), attendee_email: email },
    );

    // a checkout given up on comes back saying nothing was booked
    await page.goto(`${host.baseUrl}/book/deep-dive?month=2032-03`);
    await page.locator("button.day").first().click({ timeout: 20_000 });
    await page.locator("button.time").nth(1).click();
    await page.locator("#f-name").fill("Hesitant");
    await page.locator("#f-email").fill(`hesitant-${crypto.randomUUID().slice(0, 8)}@example.com`);
    await page.locator("#submit").click();
    await page.waitForURL(/\/pay\/local\//, { timeout: 20_000 });
    await page.locator("button", { hasText: "Cancel" }).click();
    await page.waitForURL(/checkout=cancelled/, { timeout: 20_000 });
    assert.equal(
      await page.locator("#notice").textContent(),
      "The payment was cancelled: nothing was booked.",
    );
  } finally {
    await b.close();
  }
});

test("embedded, a paid session pays in a window of its own: the parent page stays and hears bookingSuccessfulV2; a checkout given up on books nothing", async () => {
  const b = await browser();
  try {
    const page = await b.newPage();
    const email = `embed-payer-${crypto.randomUUID().slice(0, 8)}@example.com`;
    const parentAt = embedding({ month: "2032-06", name: "Embed Payer", email }, "book/deep-dive");
    await page.goto(parentAt);
    const frame = page.frameLocator("iframe.cal-embed");
    await frame.locator("button.day").first().click({ timeout: 20_000 });
    const time = frame.locator("button.time").first();
    const start = await time.getAttribute("data-start");
    await time.click();
    assert.equal(await frame.locator("#submit").textContent(), "Pay and book");
    const opened = page.waitForEvent("popup", { timeout: 20_000 });
    await frame.locator("#submit").click();
    const checkout = await opened;
    await checkout.waitForURL(/\/pay\/local\/cs_local_/, { timeout: 20_000 });
    await frame.locator("#done-title").filter({ hasText: "Complete the payment in the window that opened." })
      .waitFor({ timeout: 20_000 });
    const closed = checkout.waitForEvent("close", { timeout: 20_000 });
    await checkout.locator("button", { hasText: /^Pay/ }).click();
    await closed; // back on the booker, the checkout window hands over to the frame and closes
    const made = await heard(page, "bookingSuccessfulV2");
    assert.equal(page.url(), parentAt, "the embedding page never left");
    assert.equal(made.status, "PENDING", "deep-dive waits for its host");
    assert.equal(new Date(made.startTime).getTime(), new Date(start!).getTime());
    assert.equal(made.paymentRequired, false, "announced once paid");
    assert.equal(
      await frame.locator("#done-title").textContent(),
      "Paid. The host will confirm your booking.",
    );
    const [row] = await host.ctx.sql<{ attendee_email: string; payment_session_id: string | null }[]>`
      select attendee_email, payment_session_id from public.scheduling_bookings where uid = ${made.uid}`;
    assert.equal(row.attendee_email, email);
    assert.match(row.payment_session_id ?? "", /^cs_local_/);

    // a second checkout given up on: its window closes, the frame says nothing was booked
    const again = await b.newPage();
    const quitter = `quitter-${crypto.randomUUID().slice(0, 8)}@example.com`;
    await again.goto(embedding({ month: "2032-06", name: "Quitter", email: quitter }, "book/deep-dive"));
    const frame2 = again.frameLocator("iframe.cal-embed");
    await frame2.locator("button.day").nth(1).click({ timeout: 20_000 });
    await frame2.locator("button.time").first().click();
    const opened2 = again.waitForEvent("popup", { timeout: 20_000 });
    await frame2.locator("#submit").click();
    const checkout2 = await opened2;
    await checkout2.waitForURL(/\/pay\/local\//, { timeout: 20_000 });
    const closed2 = checkout2.waitForEvent("close", { timeout: 20_000 });
    await checkout2.locator("button", { hasText: "Cancel" }).click();
    await closed2;
    await frame2.locator("#notice").filter({ hasText: "The payment was not completed: nothing was booked." })
      .waitFor({ timeout: 20_000 });
    const types = await again.evaluate(() => (window as any).calEvents.map((e: any) => e.type));
    assert.ok(!types.includes("bookingSuccessfulV2"), types.join(","));
    const [{ n }] = await host.ctx.sql<{ n: number }[]>`
      select count(*)::int as n from public.scheduling_bookings where attendee_email = ${quitter}`;
    assert.equal(n, 0);
  } finally {
    await b.close();
  }
});

test("embedded with a link to no session: the parent hears linkFailed (404) and shows its failed state, not an endless loader", async () => {
  const b = await browser();
  try {
    const page = await b.newPage();
    await page.goto(embedding({ theme: "dark" }, "book/no-such-session"));
    const failed = await heard(page, "linkFailed");
    assert.equal(failed.code, "404");
    assert.match(failed.data.url, /\/book\/no-such-session\/embed\?embed=booker/);
    await page.waitForFunction(
      () => (globalThis as any).document.querySelector("cal-inline")?.getAttribute("loading") === "failed",
      undefined,
      { timeout: 20_000 },
    );
    const types = await page.evaluate(() => (window as any).calEvents.map((e: any) => e.type));
    assert.ok(!types.includes("linkReady"), types.join(","));
    const standalone = await fetch(`${host.baseUrl}/book/no-such-session`);
    assert.equal(standalone.status, 404);
    assert.match(standalone.headers.get("content-type") ?? "", /^text\/html/);
    assert.match(await standalone.text(), /Session not found/);
  } finally {
    await b.close();
  }
});

test("Cal('modal') with theme=light: the modal shows the light booker, and a click on its backdrop closes it (__closeIframe)", async () => {
  const b = await browser();
  try {
    const page = await b.newPage();
    await page.goto(embedding({ theme: "light", month: "2031-08" }, "book/intro-call", "modal"));
    const iframe = page.locator("iframe.cal-embed");
    await iframe.waitFor({ state: "attached", timeout: 20_000 });
    const src = await iframe.getAttribute("src");
    assert.match(src!, /\/book\/intro-call\/embed\?embed=booker/);
    assert.match(src!, /embedType=modal/);
    assert.match(src!, /theme=light/);
    await heard(page, "linkReady");
    const modal = page.locator("cal-modal-box");
    assert.equal(await modal.getAttribute("state"), "loaded", "linkReady took the modal out of its loader");
    const frame = page.frameLocator("iframe.cal-embed");
    await frame.locator("button.day").first().waitFor({ timeout: 20_000 });
    assert.equal(await frame.locator("html").getAttribute("data-theme"), "light");
    assert.equal(await frame.locator("html").getAttribute("data-embed-type"), "modal");
    const colours = await frame.locator("main").evaluate((main: any) => ({
      main: (globalThis as any).getComputedStyle(main).backgroundColor,
      page: (globalThis as any).getComputedStyle(main.ownerDocument.body).backgroundColor,
    }));
    assert.deepEqual(
      colours,
      { main: "rgb(255, 255, 255)", page: "rgba(0, 0, 0, 0)" },
      "a light card on the backdrop",
    );
    // a click inside the booker keeps the modal open; one on the backdrop around it closes it
    await frame.locator("button.day").first().click();
    assert.equal(await modal.getAttribute("state"), "loaded");
    await frame.locator("body").click({ position: { x: 4, y: 4 } });
    await heard(page, "__closeIframe");
    await page.waitForFunction(
      () => (globalThis as any).document.querySelector("cal-modal-box")?.getAttribute("state") === "closed",
      undefined,
      {
        timeout: 20_000,
      },
    );
  } finally {
    await b.close();
  }
});

test("Cal('floatingButton'): the button opens the booker in a modal (embedType modal); Escape closes it", async () => {
  const b = await browser();
  try {
    const page = await b.newPage();
    await page.goto(embedding({ month: "2031-08", theme: "dark" }, "book/intro-call", "floatingButton"));
    await page.locator("cal-floating-button button").click({ timeout: 20_000 });
    const iframe = page.locator("iframe.cal-embed");
    await iframe.waitFor({ state: "attached", timeout: 20_000 });
    assert.match((await iframe.getAttribute("src"))!, /embedType=modal/);
    await heard(page, "linkReady");
    const frame = page.frameLocator("iframe.cal-embed");
    await frame.locator("button.day").first().waitFor({ timeout: 20_000 });
    assert.equal(await frame.locator("html").getAttribute("data-theme"), "dark");
    await frame.locator("button.day").first().press("Escape");
    await heard(page, "__closeIframe");
    await page.waitForFunction(
      () => (globalThis as any).document.querySelector("cal-modal-box")?.getAttribute("state") === "closed",
      undefined,
      {
        timeout: 20_000,
      },
    );
  } finally {
    await b.close();
  }
});

test("inline, a click beside the booker closes nothing: __closeIframe is a modal's only", async () => {
  const b = await browser();
  try {
    const page = await b.newPage();
    await page.goto(embedding({ month: "2031-08" }));
    await heard(page, "linkReady");
    const frame = page.frameLocator("iframe.cal-embed");
    assert.equal(await frame.locator("html").getAttribute("data-embed-type"), "inline");
    await frame.locator("body").click({ position: { x: 2, y: 2 } });
    await frame.locator("button.day").first().press("Escape");
    await new Promise((resolve) => setTimeout(resolve, 300));
    const types = await page.evaluate(() => (window as any).calEvents.map((e: any) => e.type));
    assert.ok(!types.includes("__closeIframe"), types.join(","));
  } finally {
    await b.close();
  }
});
