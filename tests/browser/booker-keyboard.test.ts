// The booker page as people know it from Cal.com, in Chromium: a month grid of numbered day buttons named
// by their full date, the chosen day's times beside it (below it on a phone), a time-zone picker and a
// 12/24-hour toggle, the host and the length shown, aria-pressed on what is chosen, a live region, focus
// moved to the next step, and the API's refusals in plain words beside their field. Walked by keyboard
// alone on a 390-pixel-wide screen.
import assert from "node:assert/strict";
import type { Page } from "playwright-core";
import { launchChromium } from "../helpers/browser.ts";
import { test } from "../helpers/test.ts";
import { testHost } from "../helpers/host.ts";

const host = await testHost();
// June 2033: nothing else books it (the scheduling tests use other months)
const MONTH = "2033-07";

/** What has the keyboard focus: its id, its classes, its text. */
const focused = (page: Page) =>
  page.evaluate(() => {
    const el = (globalThis as any).document.activeElement;
    return { id: el?.id ?? "", className: el?.className ?? "", text: el?.textContent ?? "", pressed: el?.getAttribute("aria-pressed") };
  });

/** Presses Tab until the focus is on an element matching `selector` (at most `max` presses). */
async function tabTo(page: Page, selector: string, max = 80) {
  for (let i = 0; i < max; i++) {
    if (await page.evaluate((s) => (globalThis as any).document.activeElement?.matches(s) ?? false, selector)) return;
    await page.keyboard.press("Tab");
  }
  throw new Error(`the keyboard never reached ${selector}`);
}

test("by keyboard alone on a 390-pixel-wide screen: a day, a time, a refusal beside its field, then booked", async () => {
  const browser = await launchChromium();
  try {
    const page = await browser.newPage({ viewport: { width: 390, height: 844 }, locale: "en-US", timezoneId: "Europe/London" });
    await page.goto(`${host.baseUrl}/book/intro-call?month=${MONTH}&layout=month_view`);
    await page.locator("button.day").first().waitFor({ timeout: 30_000 });
    assert.equal(await page.locator("main").getAttribute("data-layout"), "month_view");
    // the host and the length beside the title
    assert.match(await page.locator("#meta").textContent() ?? "", /^With .+ · 15 min$/);
    // a month grid: a numbered button for every day, the full date as its name, closed days disabled
    const grid = page.locator("#days button");
    assert.equal(await grid.count(), 31);
    assert.equal(await grid.first().textContent(), "1");
    assert.match(await grid.first().getAttribute("aria-label") ?? "", /^Friday, July 1, 2033/);
    assert.ok(await page.locator("#days button:disabled").count() > 0, "weekends are closed");
    assert.equal(await page.evaluate(() => (globalThis as any).document.documentElement.scrollWidth), 390, "nothing wider than the screen");
    // the 12-hour clock from the visitor's locale
    assert.equal(await page.locator("#fmt-12").getAttribute("aria-pressed"), "true");

    // Tab to the first open day; Enter chooses it and the focus moves to its first time, below the month
    await tabTo(page, "button.day");
    const day = await focused(page);
    await page.keyboard.press("Enter");
    let now = await focused(page);
    assert.match(now.className, /\btime\b/, JSON.stringify(now));
    assert.match(now.text, /^\d{2}:\d{2} (AM|PM)/);
    assert.equal(await page.locator(`button.day.on`).getAttribute("aria-pressed"), "true");
    assert.equal(await page.locator("button.day.on").textContent(), day.text);
    const month = await page.locator("#days").boundingBox();
    const times = await page.locator("#times").boundingBox();
    assert.ok(times!.y >= month!.y + month!.height, "on a phone the times come below the month");
    const inView = await page.locator("button.time").first().evaluate((el) => {
      const r = el.getBoundingClientRect();
      return r.top >= 0 && r.bottom <= (globalThis as any).innerHeight;
    });
    assert.ok(inView, "the chosen day's times are scrolled into view");
    // the page clears the live region and fills it a moment later, so that a repeated message is announced again
    await page.waitForFunction(() => /times/.test((globalThis as any).document.getElementById("live")?.textContent ?? ""), null, { timeout: 5000 });

    // Enter on the time: the booking form, focused on its first field
    await page.keyboard.press("Enter");
    now = await focused(page);
    assert.equal(now.id, "f-name");
    await page.keyboard.type("Keyboard Visitor");
    await page.keyboard.press("Tab");
    // an address the browser takes but the API refuses: said in plain words beside the email field
    await page.keyboard.type("visitor@localhost");
    await tabTo(page, "#submit");
    await page.keyboard.press("Enter");
    await page.locator("#f-email-error").waitFor({ timeout: 20_000 });
    assert.match(await page.locator("#f-email-error").textContent() ?? "", /^Please enter an email address/);
    assert.equal(await page.locator("#f-email").getAttribute("aria-invalid"), "true");
    assert.equal(await page.locator("#f-email").getAttribute("aria-describedby"), "f-email-error");
    assert.equal((await focused(page)).id, "f-email", "the focus goes to the field to fix");

    await page.keyboard.press("Control+A");
    await page.keyboard.type(`keyboard-${crypto.randomUUID().slice(0, 8)}@example.com`);
    await tabTo(page, "#submit");
    await page.keyboard.press("Enter");
    await page.locator("#done").waitFor({ state: "visible", timeout: 20_000 });
    assert.equal((await focused(page)).id, "done-title", "the focus moves to the outcome");
    assert.equal(await page.locator("#done-title").textContent(), "Booked.");
    await page.waitForFunction(() => (globalThis as any).document.getElementById("live")?.textContent === "Booked.");
    assert.equal(await page.locator("#f-email-error").count(), 0, "the refusal is gone");
  } finally {
    await browser.close();
  }
});

test("on a wide screen the times stand beside the month; the 24-hour toggle and the time-zone picker re-draw them", async () => {
  const browser = await launchChromium();
  try {
    const page = await browser.newPage({ viewport: { width: 1100, height: 900 }, locale: "en-GB", timezoneId: "America/New_York" });
    await page.goto(`${host.baseUrl}/book/intro-call?month=${MONTH}`);
    await page.locator("button.day").first().waitFor({ timeout: 30_000 });
    // en-GB reads the 24-hour clock
    assert.equal(await page.locator("#fmt-24").getAttribute("aria-pressed"), "true");
    await page.locator("button.day").first().click();
    const month = await page.locator("#days").boundingBox();
    const times = await page.locator("#times").boundingBox();
    assert.ok(times!.x >= month!.x + month!.width, "the times beside the month");
    const first = await page.locator("button.time").first().textContent();
    assert.match(first ?? "", /^\d{2}:\d{2}$/);
    await page.locator("#fmt-12").click();
    assert.equal(await page.locator("#fmt-12").getAttribute("aria-pressed"), "true");
    assert.match(await page.locator("button.time").first().textContent() ?? "", /^\d{2}:\d{2} (am|pm|AM|PM)$/);
    // another zone: the times are loaded again in it
    await page.locator("#zone-picker").selectOption("Asia/Tokyo");
    await page.locator("#zone").filter({ hasText: "Asia/Tokyo" }).waitFor();
    await page.locator("button.day").first().click({ timeout: 20_000 });
    assert.notEqual(await page.locator("button.time").first().textContent(), first);
  } finally {
    await browser.close();
  }
});
