// The account page /account/network in Chromium: a member signed in with the site's session makes an app
// password (shown once), sees it listed, signs an app in with it, revokes it, and the app's session ends.
import assert from "node:assert/strict";
import { launchChromium } from "../helpers/browser.ts";
import { test } from "../helpers/test.ts";
import { testHost } from "../helpers/host.ts";
import { xrpc } from "../helpers/lexicon.ts";
import { newMember } from "../helpers/network.ts";
import { mintPersonJwt } from "../../shared/people.ts";

const host = await testHost();

test("make, list and revoke an app password on the account page; the revoked password's app session ends", async () => {
  const member = await newMember(host.ctx.sql, "br");
  const jwt = await mintPersonJwt(await host.ctx.secrets.get("jwt"), { id: member.id, email: `${member.username}@example.test`, role: "member" });
  const browser = await launchChromium();
  try {
    const page = await browser.newPage();
    await page.goto(`${host.baseUrl}/account/network#access_token=${jwt}&token_type=bearer`);
    await page.waitForSelector("#signed-in:not([hidden])");
    assert.equal(await page.textContent("#handle"), member.handle);
    assert.ok(!page.url().includes("access_token"), "the token leaves the address bar");
    await page.fill("#name", "Browser phone");
    await page.click("#make button[type=submit]");
    await page.waitForSelector("#made:not([hidden])");
    const password = (await page.textContent("#made-password"))!.trim();
    assert.match(password, /^[a-z2-7]{4}(-[a-z2-7]{4}){3}$/);
    await page.waitForSelector("text=Browser phone");
    const session = await xrpc(host.baseUrl, "com.atproto.server.createSession", {
      input: { identifier: member.handle, password },
    });
    assert.equal(session.status, 200);
    await page.click('button[data-name="Browser phone"]');
    await page.waitForSelector('button[data-name="Browser phone"]', { state: "detached" });
    assert.equal((await xrpc(host.baseUrl, "com.atproto.server.getSession", { token: session.body.accessJwt })).status, 401);
  } finally {
    await browser.close();
  }
});

test("without the site's session the page asks to sign in on the site", async () => {
  const browser = await launchChromium();
  try {
    const page = await browser.newPage();
    await page.goto(`${host.baseUrl}/account/network`);
    await page.waitForSelector("#signed-out:not([hidden])");
    assert.equal(await page.isVisible("#signed-in"), false);
  } finally {
    await browser.close();
  }
});
