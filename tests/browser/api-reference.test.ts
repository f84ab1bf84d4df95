// The /api reference page in a real browser (Debian's chromium through playwright-core): Scalar renders
// the site's OpenAPI document, its operations are listed, and nothing is requested from another host.
import assert from "node:assert/strict";
import { test } from "../helpers/test.ts";
import { testHost } from "../helpers/host.ts";
import { launchChromium } from "../helpers/browser.ts";

const host = await testHost();

test("the reference page renders the document's operations from every API, loading nothing from elsewhere", async () => {
  const browser = await launchChromium();
  try {
    const page = await browser.newPage();
    const foreign: string[] = [];
    const failed: string[] = [];
    page.on("request", (request) => {
      const url = new URL(request.url());
      if (!["localhost", "127.0.0.1"].includes(url.hostname) && url.protocol.startsWith("http")) foreign.push(request.url());
    });
    page.on("pageerror", (error) => failed.push(error.message));
    const response = await page.goto(`${host.baseUrl}/api`);
    assert.equal(response?.status(), 200);

    // the document's title, the tag groups in the sidebar, then each group's operations once it is opened
    await page.getByRole("heading", { name: /Sitewire Demo API/ }).first().waitFor({ timeout: 60_000 });
    for (const group of ["Content API", "Forms API", "Scheduling API", "Store API", "Support API", "Analytics API"]) {
      await page.getByText(group, { exact: true }).first().waitFor({ timeout: 10_000 });
    }
    const opens: [string, string, string][] = [
      ["Content Delivery", "List entries", "/api/content/spaces/{space}/environments/{environment}/entries"],
      ["Analytics Capture", "Evaluate feature flags", "/api/events/flags"],
      ["Content Management", "Upload bytes", "/api/content/spaces/{space}/environments/{environment}/uploads"],
      ["Bookings", "Create a booking", "/api/scheduling/v2/bookings"],
    ];
    for (const [tag, summary, path] of opens) {
      await page.getByText(tag, { exact: true }).first().click();
      await page.getByText(summary, { exact: true }).first().waitFor({ state: "visible", timeout: 30_000 });
      assert.ok(await page.getByText(path, { exact: true }).count() > 0, `${tag} lists ${path}`);
    }
    // the store's address names a version, never an empty segment
    await page.getByText("Storefront", { exact: true }).first().click();
    await page.getByText("Run a storefront query (short address)", { exact: true }).first()
      .waitFor({ state: "visible", timeout: 30_000 });
    const text = await page.locator("body").innerText();
    assert.doesNotMatch(text, /\/api\/\/graphql/, "no /api//graphql.json");
    assert.match(text, /\/api\/(\{version\}|2024-10)\/graphql\.json/);
    // contentful-management sends uploads to Contentful's own upload host unless hostUpload is set
    assert.ok(await page.getByText(/`?hostUpload`? equal to `?host`?/).count() > 0, "the page says to set hostUpload");
    assert.deepEqual(foreign, [], "no request leaves the site");
    assert.deepEqual(failed, [], "the page runs without errors");
  } finally {
    await browser.close();
  }
});
