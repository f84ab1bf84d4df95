// The chat widget in Chromium (Debian's, through playwright-core), embedded with Chatwoot's own install
// snippet on a loopback third-party page (another origin than the site): it mounts once in a shadow
// root (nothing of the page restyled), follows chatwootSettings, opens by keyboard, takes the visitor's
// line, shows an agent's answer made through the application API the moment it is committed (pushed
// over the Action Cable socket) with chatwoot:on-message and chatwidget:on-message fired, offers choices
// taken once (open again after a refused click), shows pictures and voice notes, pops out to /support with the same thread, and resets.
import assert from "node:assert/strict";
import type { Browser, BrowserContext, Page } from "playwright-core";
import { launchChromium } from "../helpers/browser.ts";
import { test } from "../helpers/test.ts";
import { sha256Hex } from "../../shared/ids.ts";
import { call, desk } from "../functions/support-api/desk.ts";

const d = await desk();
let browser: Browser | undefined;
const launch = async () => (browser ??= await launchChromium());
globalThis.addEventListener("unload", () => browser?.close());

/** A loopback page of another site carrying Chatwoot's install snippet, recording the widget's events. */
function thirdPartySite(settings: Record<string, unknown>) {
  const server = Deno.serve({ hostname: "127.0.0.1", port: 0, onListen() {} }, () =>
    new Response(
      `<!doctype html><html><head><title>Another shop</title>
<style>h1 { color: rgb(10, 20, 30); font-family: serif; } button { background: rgb(1, 2, 3); }</style></head>
<body><h1>Another shop</h1><button id="own">The page's own button</button>
<script>
window.events = [];
for (const name of ["ready", "on-message", "error", "opened", "closed"]) {
  for (const prefix of ["chatwoot", "chatwidget"]) {
    window.addEventListener(prefix + ":" + name, (e) => window.events.push({ name: prefix + ":" + name, detail: e.detail }));
  }
}
window.chatwootSettings = ${JSON.stringify(settings)};
(function (d, t) {
  var BASE_URL = ${JSON.stringify(d.root)};
  var g = d.createElement(t), s = d.getElementsByTagName(t)[0];
  g.src = BASE_URL + "/packs/js/sdk.js";
  g.defer = true;
  g.async = true;
  s.parentNode.insertBefore(g, s);
  g.onload = function () {
    window.chatwootSDK.run({ websiteToken: ${JSON.stringify(d.host.space)}, baseUrl: ${JSON.stringify(d.host.baseUrl)} });
    // a second run (a second snippet on the page) mounts nothing more
    window.chatwootSDK.run({ websiteToken: ${JSON.stringify(d.host.space)}, baseUrl: ${JSON.stringify(d.host.baseUrl)} });
  };
})(document, "script");
</script></body></html>`,
      { headers: { "content-type": "text/html" } },
    ));
  return { url: `http://127.0.0.1:${server.addr.port}/products/tea`, close: () => server.shutdown() };
}

type Recorded = { name: string; detail: any };
const events = (page: Page) => page.evaluate(() => (window as unknown as { events: Recorded[] }).events);
async function waitForEvent(page: Page, name: string, want: (detail: any) => boolean = () => true) {
  const started = Date.now();
  while (Date.now() - started < 15_000) {
    const found = (await events(page)).find((e) => e.name === name && want(e.detail));
    if (found) return found;
    await new Promise((r) => setTimeout(r, 50));
  }
  throw new Error(`no ${name} event: ${JSON.stringify(await events(page))}`);
}

/** The widget's stored contact and thread on the page's origin. */
const stored = (page: Page) =>
  page.evaluate((key) => JSON.parse(localStorage.getItem(key) || "null"), `cw_sitewire_${d.host.space}`);

async function agentLine(conversationId: number, content: string) {
  const answer = await call("POST", `${d.app}/conversations/${conversationId}/messages`, {
    key: d.agent.key,
    body: { content, message_type: "outgoing" },
  });
  assert.equal(answer.status, 200, JSON.stringify(answer.body));
  return answer.body;
}

const PNG = Uint8Array.from(
  atob("iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mP8z8BQDwAEhQGAhKmMIQAAAABJRU5ErkJggg=="),
  (c) => c.charCodeAt(0),
);

test("embedded on another site: mounts once, asks as Chatwoot does, takes a line, shows the agent's answer live, choices, files, popout, reset", async () => {
  const site = thirdPartySite({ position: "left", launcherTitle: "Ask us", darkMode: "dark", locale: "en" });
  let context: BrowserContext | undefined;
  try {
    context = await (await launch()).newContext({ locale: "en-US" });
    const page = await context.newPage();
    await page.goto(site.url);
    await waitForEvent(page, "chatwoot:ready");
    await waitForEvent(page, "chatwidget:ready");

    // ---- the object, mounted once, with Chatwoot's members and argument checks ----
    const shape = await page.evaluate(() => {
      const w = window as any;
      const api = w.$chatwoot;
      const throws = (fn: () => void) => {
        try {
          fn();
          return null;
        } catch (error) {
          return (error as Error).message;
        }
      };
      return {
        same: api === w.$chatwidget,
        holders: (globalThis as any).document.querySelectorAll("#cw-widget-holder").length,
        shadow: !!(globalThis as any).document.querySelector("#cw-widget-holder")!.shadowRoot,
        documentStyles: (globalThis as any).document.querySelectorAll("style, link[rel=stylesheet]").length,
        h1: (globalThis as any).getComputedStyle((globalThis as any).document.querySelector("h1")!).color,
        ownButton: (globalThis as any).getComputedStyle((globalThis as any).document.querySelector("#own")!).backgroundColor,
        values: { hasLoaded: api.hasLoaded, isOpen: api.isOpen, position: api.position, launcherTitle: api.launcherTitle, darkMode: api.darkMode },
        functions: ["toggle", "toggleBubbleVisibility", "popoutChatWindow", "setUser", "setCustomAttributes",
          "deleteCustomAttribute", "setConversationCustomAttributes", "deleteConversationCustomAttribute", "setLabel",
          "removeLabel", "setLocale", "reset"].filter((name) => typeof api[name] !== "function"),
        vendorRun: w.VendorSupport.run === w.chatwootSDK.run,
        errors: [
          throws(() => api.setUser({}, { name: "A" })),
          throws(() => api.setUser("u-1", { company_name: "A" })),
          throws(() => api.setCustomAttributes({})),
          throws(() => api.deleteCustomAttribute("")),
          throws(() => api.setConversationCustomAttributes({})),
          throws(() => api.deleteConversationCustomAttribute("")),
          throws(() => api.setLabel("vip")),
        ],
      };
    });
    assert.deepEqual(shape, {
      same: true,
      holders: 1,
      shadow: true,
      documentStyles: 1, // the page's own: the widget's style lives in its shadow root
      h1: "rgb(10, 20, 30)",
      ownButton: "rgb(1, 2, 3)",
      values: { hasLoaded: true, isOpen: false, position: "left", launcherTitle: "Ask us", darkMode: "dark" },
      functions: [],
      vendorRun: true,
      errors: [
        "Identifier should be a string or a number",
        "User object should have one of the keys [avatar_url, email, name]",
        "Custom attributes should have atleast one key",
        "Custom attribute is required",
        "Custom attributes should have atleast one key",
        "Custom attribute is required",
        null,
      ],
    });
    assert.equal((await events(page)).filter((e) => e.name === "chatwoot:ready").length, 1);

    // ---- settings: left, the launcher's title, dark ----
    const launcher = page.getByRole("button", { name: "Chat with us" });
    assert.match(await launcher.innerText(), /Ask us/);
    const box = (await launcher.boundingBox())!;
    assert.ok(box.x < 100, `the launcher sits left: x=${box.x}`);
    assert.match(await page.locator(".root").getAttribute("class") ?? "", /\bdark\b/);

    // ---- keyboard: open with Enter, focus in the message box ----
    await launcher.focus();
    await page.keyboard.press("Enter");
    const dialog = page.getByRole("dialog", { name: "Support" });
    await dialog.waitFor();
    assert.equal(await launcher.getAttribute("aria-expanded"), "true");
    assert.equal(await page.evaluate(() => (globalThis as any).document.querySelector("#cw-widget-holder")!.shadowRoot!.activeElement?.id), "cw-input");
    await waitForEvent(page, "chatwoot:opened");
    assert.equal(await page.evaluate(() => (window as any).$chatwoot.isOpen), true);

    // ---- the visitor writes; the thread opens on the desk's prompt, the acknowledgement follows once ----
    await page.getByRole("textbox", { name: "Your message" }).fill("Hello, is the green tea in stock?");
    await page.keyboard.press("Enter");
    const log = page.getByRole("log", { name: "Conversation" });
    await log.getByText("Hello, is the green tea in stock?").waitFor();
    await log.getByText("Hi! Ask us anything about the demo site.").waitFor();
    await log.getByText("Thanks! Someone from the team will answer here shortly.").waitFor();
    const { contact, conversation } = await stored(page);
    assert.ok(contact && conversation);
    const [row] = await d.host.ctx.sql<{ path: string }[]>`select path from public.support_conversations where id = ${conversation}`;
    assert.equal(row.path, "/products/tea");

    // ---- an agent answers through the application API: pushed to the open widget, events fired ----
    const answer = await agentLine(conversation, "Yes, we have 40 tins left.");
    await log.getByText("Yes, we have 40 tins left.").waitFor({ timeout: 5000 });
    const onMessage = await waitForEvent(page, "chatwoot:on-message", (detail) => detail.id === answer.id);
    assert.equal(onMessage.detail.content, "Yes, we have 40 tins left."); // Chatwoot pages read detail.content
    assert.equal(onMessage.detail.message.content, "Yes, we have 40 tins left."); // the spec's detail.message
    assert.equal(onMessage.detail.message_type, 1);
    const siteName = await waitForEvent(page, "chatwidget:on-message", (detail) => detail.id === answer.id);
    assert.deepEqual(siteName.detail, onMessage.detail);
    assert.match(await log.getByText("Yes, we have 40 tins left.").locator("..").innerText(), /support-/); // the agent's name

    // the agent's typing shows in the live region, and goes with the answer
    await call("POST", `${d.app}/conversations/${conversation}/toggle_typing_status`, {
      key: d.agent.key,
      body: { typing_status: "on" },
    });
    await page.getByRole("status").getByText("Support is typing…").waitFor();
    await call("POST", `${d.app}/conversations/${conversation}/toggle_typing_status`, {
      key: d.agent.key,
      body: { typing_status: "off" },
    });
    await page.getByRole("status").getByText("Support is typing…").waitFor({ state: "detached" });

    // ---- an offer of choices: buttons, taken once through the widget's door ----
    await d.host.ctx.sql`
      insert into public.support_messages (conversation_id, message_type, content, content_type, content_attributes)
      values (${conversation}, 1, 'Which size?', 'input_select',
              ${d.host.ctx.sql.json({ items: [{ title: "50 g", value: "50" }, { title: "100 g", value: "100" }] })})`;
    const choices = page.getByRole("group", { name: "Choose one" });
    await choices.waitFor();
    // a taken choice is the contact's line, and the desk takes one a second: a click refused for that
    // leaves the offer open to a second click (the contact's turn is set here, never waited out)
    const contactHash = await sha256Hex(contact);
    const turn = (at: Date | null) =>
      d.host.ctx.sql`update public.support_contacts set last_line_at = ${at} where token_hash = ${contactHash}`;
    await turn(new Date(Date.now() + 3600_000));
    await choices.getByRole("button", { name: "100 g" }).click();
    assert.equal((await waitForEvent(page, "chatwoot:error", (detail) => detail.status === 429)).detail.status, 429);
    await page.waitForFunction(() => {
      const root = (globalThis as any).document.querySelector("#cw-widget-holder")!.shadowRoot!;
      const buttons = [...root.querySelectorAll("[role=group] button")];
      return buttons.length === 2 && buttons.every((b: any) => !b.disabled && b.getAttribute("aria-pressed") === "false");
    });
    // a line just now: the click is refused with a one-second Retry-After, which the widget waits out and
    // sends again by itself
    await turn(new Date());
    await choices.getByRole("button", { name: "100 g" }).click();
    await log.locator("li.incoming").getByText("100 g", { exact: true }).waitFor();
    await page.waitForFunction(() => {
      const root = (globalThis as any).document.querySelector("#cw-widget-holder")!.shadowRoot!;
      const buttons = [...root.querySelectorAll("[role=group] button")];
      return buttons.length === 2 && buttons.every((b: any) => b.disabled);
    });
    assert.equal(await choices.getByRole("button", { name: "100 g" }).getAttribute("aria-pressed"), "true");
    const [offer] = await d.host.ctx.sql<{ taken: string }[]>`
      select content_attributes ->> 'taken' as taken from public.support_messages
      where conversation_id = ${conversation} and content_type = 'input_select'`;
    assert.equal(offer.taken, "100");

    // ---- a picture and a voice note from the desk ----
    await d.host.ctx.storage.put("support", `browser-test/${conversation}/tea.png`, PNG, "image/png");
    await d.host.ctx.sql.begin(async (tx) => {
      const [picture] = await tx<{ id: number }[]>`
        insert into public.support_messages (conversation_id, message_type, content, sender_agent_id)
        values (${conversation}, 1, 'Here is the tin.', ${d.agent.agentId}) returning id`;
      await tx`insert into public.support_attachments (message_id, file_type, extension, content_type, storage_key, file_size)
               values (${picture.id}, 'image', 'png', 'image/png', ${`browser-test/${conversation}/tea.png`}, ${PNG.length})`;
      const [voice] = await tx<{ id: number }[]>`
        insert into public.support_messages (conversation_id, message_type, content, content_attributes, sender_agent_id)
        values (${conversation}, 1, null, ${tx.json({ kind: "voice", seconds: 4 })}, ${d.agent.agentId}) returning id`;
      await tx`insert into public.support_attachments (message_id, file_type, extension, content_type, storage_key, file_size, duration)
               values (${voice.id}, 'audio', 'ogg', 'audio/ogg', ${`browser-test/${conversation}/voice.ogg`}, 1000, 4)`;
    });
    // both are pushed after the commit, with their files' signed one-hour addresses
    const picture = log.getByRole("img", { name: "Picture (png)" });
    await picture.waitFor();
    await page.waitForFunction(() => {
      const img = (globalThis as any).document.querySelector("#cw-widget-holder")!.shadowRoot!.querySelector("ol img");
      return !!img && img.complete && img.naturalWidth === 1;
    });
    assert.match(await picture.getAttribute("src") ?? "", /\/api\/desk\/files\/\d+\?.*signature=/);
    await log.getByText("Voice note (4 s)").waitFor();
    assert.match(await log.locator("audio").getAttribute("src") ?? "", /\/api\/desk\/files\/\d+\?.*signature=/);
    assert.equal(await log.locator("audio").getAttribute("aria-label"), "Voice note");

    // ---- the desk resolves the thread: said in the log at once ----
    await call("POST", `${d.app}/conversations/${conversation}/toggle_status`, { key: d.agent.key, body: { status: "resolved" } });
    await log.getByText("This conversation was marked resolved.").waitFor();

    // ---- Escape closes and gives focus back to the launcher ----
    await page.getByRole("textbox", { name: "Your message" }).focus();
    await page.keyboard.press("Escape");
    await dialog.waitFor({ state: "hidden" });
    assert.equal(await launcher.getAttribute("aria-expanded"), "false");
    assert.equal(await page.evaluate(() => (globalThis as any).document.querySelector("#cw-widget-holder")!.shadowRoot!.activeElement?.className), "launcher");
    await waitForEvent(page, "chatwoot:closed");

    // an answer while closed counts as unread on the launcher
    await agentLine(conversation, "Anything else?");
    await page.getByRole("button", { name: "Chat with us, 1 unread messages" }).waitFor();

    // ---- popout: the panel on the site's own /support page, the same thread ----
    const [popout] = await Promise.all([
      context.waitForEvent("page"),
      page.evaluate(() => (window as any).$chatwoot.popoutChatWindow()),
    ]);
    await popout.waitForLoadState();
    await popout.getByText("Yes, we have 40 tins left.").waitFor();
    assert.equal(new URL(popout.url()).origin + new URL(popout.url()).pathname, `${d.host.baseUrl}/support`);
    assert.equal(new URL(popout.url()).hash, ""); // the handed-over token left the address bar
    assert.equal(await popout.getByRole("button", { name: "Chat with us" }).count(), 0); // no launcher there
    await turn(null);
    await popout.getByRole("textbox", { name: "Your message" }).fill("Writing from the popout");
    await popout.keyboard.press("Enter");
    // the line shows at once, then as the stored line (with its id) once the desk has it
    await popout.getByRole("log").locator("li[data-id]", { hasText: "Writing from the popout" }).waitFor();
    const [fromPopout] = await d.host.ctx.sql<{ n: number }[]>`
      select count(*)::int as n from public.support_messages where conversation_id = ${conversation} and content = 'Writing from the popout'`;
    assert.equal(fromPopout.n, 1);
    await popout.close();

    // ---- reset: the thread is forgotten, no second ready ----
    await page.evaluate(() => (window as any).$chatwoot.reset());
    const after = await page.evaluate(() => ({
      resetTriggered: (window as any).$chatwoot.resetTriggered,
      isOpen: (window as any).$chatwoot.isOpen,
      lines: (globalThis as any).document.querySelector("#cw-widget-holder")!.shadowRoot!.querySelectorAll("ol li").length,
    }));
    assert.deepEqual(after, { resetTriggered: true, isOpen: false, lines: 0 });
    assert.deepEqual(await stored(page), {});
    assert.equal((await events(page)).filter((e) => e.name === "chatwoot:ready").length, 1);
    // the next line opens a new thread of a new contact
    await page.evaluate(() => (window as any).$chatwoot.toggle("open"));
    await page.getByRole("textbox", { name: "Your message" }).fill("A new visitor now");
    await page.keyboard.press("Enter");
    await log.locator("li[data-id]", { hasText: "A new visitor now" }).waitFor();
    const next = await stored(page);
    assert.ok(next.contact && next.contact !== contact && next.conversation !== conversation);

    // a refusal of the desk reaches the page as chatwoot:error and chatwidget:error
    await page.evaluate(() => (window as any).$chatwoot.setCustomAttributes({ note: "a\u0000b" }));
    const refused = await waitForEvent(page, "chatwoot:error", (detail) => detail.status !== 429);
    assert.equal(refused.detail.status, 400);
    assert.deepEqual((await waitForEvent(page, "chatwidget:error", (detail) => detail.status !== 429)).detail, refused.detail);
  } finally {
    await context?.close();
    await site.close();
  }
});

test("hideMessageBubble and locale: no launcher until toggleBubbleVisibility('show'); toggle('open') opens the panel; French texts", async () => {
  const site = thirdPartySite({ hideMessageBubble: true, locale: "fr" });
  let context: BrowserContext | undefined;
  try {
    context = await (await launch()).newContext();
    const page = await context.newPage();
    await page.goto(site.url);
    await waitForEvent(page, "chatwoot:ready");
    assert.equal(await page.getByRole("button", { name: "Discutons" }).count(), 0);
    await page.evaluate(() => (window as any).$chatwoot.toggle("open"));
    await page.getByRole("dialog", { name: "Assistance" }).waitFor();
    await page.getByRole("textbox", { name: "Votre message" }).waitFor();
    assert.equal(await page.evaluate(() => (window as any).$chatwoot.locale), "fr");
    await page.evaluate(() => (window as any).$chatwoot.toggle("open")); // already open: nothing fires
    assert.equal((await events(page)).filter((e) => e.name === "chatwoot:opened").length, 1);
    await page.evaluate(() => (window as any).$chatwoot.toggleBubbleVisibility("show"));
    await page.getByRole("button", { name: "Discutons" }).waitFor();
    const box = (await page.getByRole("button", { name: "Discutons" }).boundingBox())!;
    assert.ok(box.x > 300, `the launcher sits right by default: x=${box.x}`);
  } finally {
    await context?.close();
    await site.close();
  }
});
