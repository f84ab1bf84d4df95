// The chat widget on the site's own pages, in Chromium (Debian's, through playwright-core): there it
// carries the site's session, so a signed-in visitor's thread is made under their account contact
// (verified, their profile's name and address) and follows them to another device, while an anonymous
// visitor, or the same browser once signed out, is a guest.
//
// The site's article pages are the platform's, not this project's: here one is served on the site's own
// origin by the browser's route, carrying Chatwoot's install snippet as a site page would; everything it
// calls is the running host. The /support page is the project's own.
import assert from "node:assert/strict";
import type { Browser, BrowserContext, Page } from "playwright-core";
import { ensurePerson, mintPersonJwt } from "../../shared/people.ts";
import { launchChromium } from "../helpers/browser.ts";
import { test } from "../helpers/test.ts";
import { call, desk, freshAddress } from "../functions/support-api/desk.ts";

const d = await desk();
const sql = d.host.ctx.sql;
let browser: Browser | undefined;
const launch = async () => (browser ??= await launchChromium());
globalThis.addEventListener("unload", () => browser?.close());

const articlePage = `<!doctype html><html><head><title>Green tea, a guide</title></head>
<body><h1>Green tea, a guide</h1>
<script>
window.events = [];
for (const name of ["ready", "error"]) {
  window.addEventListener("chatwoot:" + name, (e) => window.events.push({ name: "chatwoot:" + name, detail: e.detail }));
}
(function (d, t) {
  var BASE_URL = location.origin + "/api/desk";
  var g = d.createElement(t), s = d.getElementsByTagName(t)[0];
  g.src = BASE_URL + "/packs/js/sdk.js";
  g.defer = true;
  g.async = true;
  s.parentNode.insertBefore(g, s);
  g.onload = function () {
    window.chatwootSDK.run({ websiteToken: ${JSON.stringify(d.host.space)}, baseUrl: location.origin });
  };
})(document, "script");
</script></body></html>`;

/** A browser of its own (its own address, so the guest guard counts per test), serving the article page. */
async function visitor(): Promise<BrowserContext> {
  const context = await (await launch()).newContext({ extraHTTPHeaders: { "x-forwarded-for": freshAddress() } });
  await context.route(`${d.host.baseUrl}/articles/**`, (route) =>
    route.fulfill({ status: 200, contentType: "text/html; charset=utf-8", body: articlePage }));
  return context;
}

async function ready(page: Page) {
  await page.waitForFunction(() => (window as any).$chatwoot?.hasLoaded === true, null, { timeout: 15_000 });
}

/** Opens the panel (when it is a launcher's) and writes a line; answers once the desk has stored it. */
async function write(page: Page, content: string) {
  if (await page.evaluate(() => !(window as any).$chatwoot.isOpen)) await page.evaluate(() => (window as any).$chatwoot.toggle("open"));
  await page.getByRole("textbox", { name: "Your message" }).fill(content);
  await page.keyboard.press("Enter");
  // on a timeout, what the log shows (a refusal is written on the line) says why
  await page.getByRole("log").locator("li[data-id]", { hasText: content }).waitFor({ timeout: 15_000 }).catch(async (e) => {
    console.log(await page.evaluate(() => [...((globalThis as any).document.querySelector("#cw-widget-holder")).shadowRoot.querySelectorAll("li")].map((l: any) => l.outerHTML)));
    throw e;
  });
}

const stored = (page: Page) =>
  page.evaluate((key) => JSON.parse(localStorage.getItem(key) || "null"), `cw_sitewire_${d.host.space}`);

/** The contact behind the thread holding a line. */
async function contactOfLine(content: string) {
  const rows = await sql<
    { conversation_id: number; contact_id: number; person_id: string | null; kind: string; verified: boolean; name: string | null; email: string | null }[]
  >`
    select m.conversation_id::int, c.id::int as contact_id, c.person_id::text, c.kind, c.verified, c.name, c.email
    from public.support_messages m
    join public.support_conversations v on v.id = m.conversation_id
    join public.support_contacts c on c.id = v.contact_id
    where m.content = ${content}`;
  assert.equal(rows.length, 1, `one line ${JSON.stringify(content)}`);
  return rows[0];
}

test("on the site's own pages a signed-in visitor's thread is under their account contact, on every device; anonymous or signed out, a guest", async () => {
  const tag = crypto.randomUUID().slice(0, 8);
  const person = await ensurePerson(sql, `reader-${tag}@example.org`, "member");
  await sql`update public.profiles set display_name = ${`Mira ${tag}`} where id = ${person.id}`;
  const jwt = await mintPersonJwt(await d.host.ctx.secrets.get("jwt"), person, 600);
  const contexts: BrowserContext[] = [];
  try {
    // ---- signed in: the site's sign-in link returns to the article with the session in the fragment ----
    const laptop = await visitor();
    contexts.push(laptop);
    const page = await laptop.newPage();
    await page.goto(`${d.host.baseUrl}/articles/green-tea#access_token=${jwt}&token_type=bearer&type=magiclink`);
    await ready(page);
    assert.equal(new URL(page.url()).hash, "", "the session left the address bar");
    const kept = await page.evaluate(() => JSON.parse(localStorage.getItem("sitewire.session") || "null"));
    assert.equal(kept?.access_token, jwt, "kept where the site's pages keep it");

    const first = `Is my order on its way? ${tag}`;
    await write(page, first);
    const mine = await contactOfLine(first);
    assert.deepEqual(
      { person: mine.person_id, kind: mine.kind, verified: mine.verified, name: mine.name, email: mine.email },
      { person: person.id, kind: "user", verified: true, name: `Mira ${tag}`, email: person.email },
    );
    const laptopToken = (await stored(page)).contact;
    assert.equal((await stored(page)).person, person.id);
    // the desk sees the person, not a guest
    const seen = await call("GET", `${d.app}/conversations/${mine.conversation_id}`, { key: d.agent.key });
    assert.equal(seen.status, 200);
    assert.equal(seen.body.meta.sender.name, `Mira ${tag}`);
    assert.equal(seen.body.meta.sender.email, person.email);
    assert.equal(seen.body.meta.sender.additional_attributes.verified, true);

    // ---- the same person on another device, on the site's /support page: their thread is there ----
    const phone = await visitor();
    contexts.push(phone);
    const other = await phone.newPage();
    await other.goto(`${d.host.baseUrl}/support#access_token=${jwt}`);
    await ready(other);
    await other.getByRole("log").getByText(first).waitFor();
    // the desk takes one line a second from a contact: the test does not wait that second out
    const nextTurn = () => sql`update public.support_contacts set last_line_at = null where person_id = ${person.id}`;
    await nextTurn();
    const fromPhone = `Writing from my phone ${tag}`;
    await write(other, fromPhone);
    assert.equal((await contactOfLine(fromPhone)).conversation_id, mine.conversation_id);

    // ---- back on the laptop: its token was replaced by the phone's sign-in; the line still lands ----
    await nextTurn();
    const again = `And from the laptop again ${tag}`;
    await write(page, again);
    assert.equal((await contactOfLine(again)).conversation_id, mine.conversation_id);
    assert.notEqual((await stored(page)).contact, laptopToken, "the laptop took a new token");
    const [{ n: accountContacts }] = await sql<{ n: number }[]>`
      select count(*)::int as n from public.support_contacts where person_id = ${person.id}`;
    assert.equal(accountContacts, 1);
    assert.deepEqual(await page.evaluate(() => (window as any).events.filter((e: any) => e.name === "chatwoot:error")), []);

    // ---- signed out: the person's thread is not shown to whoever uses the browser next; a guest ----
    await page.evaluate(() => localStorage.removeItem("sitewire.session"));
    await page.reload();
    await ready(page);
    assert.equal(await page.getByRole("log").locator("li").count(), 0);
    const signedOut = `Someone else at this desk ${tag}`;
    await write(page, signedOut);
    const afterSignOut = await contactOfLine(signedOut);
    assert.equal(afterSignOut.person_id, null);
    assert.equal(afterSignOut.kind, "guest");
    assert.notEqual(afterSignOut.conversation_id, mine.conversation_id);

    // ---- an anonymous visitor on the same page: a guest, unverified, no name ----
    const stranger = await visitor();
    contexts.push(stranger);
    const anonymous = await stranger.newPage();
    await anonymous.goto(`${d.host.baseUrl}/articles/green-tea`);
    await ready(anonymous);
    const hello = `Hello from nobody in particular ${tag}`;
    await write(anonymous, hello);
    const guest = await contactOfLine(hello);
    assert.deepEqual(
      { person: guest.person_id, kind: guest.kind, verified: guest.verified, name: guest.name, email: guest.email },
      { person: null, kind: "guest", verified: false, name: null, email: null },
    );
    assert.equal((await stored(anonymous)).person, null);
  } finally {
    for (const context of contexts) await context.close();
  }
});

test("on another site's page the site's session is not read: the visitor is a guest there", async () => {
  const tag = crypto.randomUUID().slice(0, 8);
  const person = await ensurePerson(sql, `elsewhere-${tag}@example.org`, "member");
  const jwt = await mintPersonJwt(await d.host.ctx.secrets.get("jwt"), person, 600);
  const shop = Deno.serve({ hostname: "127.0.0.1", port: 0, onListen() {} }, () =>
    new Response(articlePage.replaceAll("location.origin", JSON.stringify(d.host.baseUrl)), {
      headers: { "content-type": "text/html" },
    }));
  const context = await visitor();
  try {
    const page = await context.newPage();
    // a session under the site's key on the other origin, and a fragment that looks like a sign-in return
    await page.goto(`http://127.0.0.1:${shop.addr.port}/tea`);
    await page.evaluate((t) => localStorage.setItem("sitewire.session", JSON.stringify({ access_token: t })), jwt);
    await page.goto(`http://127.0.0.1:${shop.addr.port}/tea#access_token=${jwt}`);
    await ready(page);
    assert.match(page.url(), /#access_token=/, "another site's fragment is left alone");
    const line = `Asking from another shop ${tag}`;
    await write(page, line);
    const contact = await contactOfLine(line);
    assert.equal(contact.person_id, null);
    assert.equal(contact.kind, "guest");
  } finally {
    await context.close();
    await shop.shutdown();
  }
});
