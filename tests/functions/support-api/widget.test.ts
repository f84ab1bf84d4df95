// The widget's own routes: the script (its size a quarter of Chatwoot's at most), the /support panel
// page, and the door through which the widget takes an offer of choices once.
import assert from "node:assert/strict";
import { Buffer } from "node:buffer";
import { get } from "node:http";
import { gunzipSync } from "node:zlib";
import { test } from "../../helpers/test.ts";
import { call, desk, thread } from "./desk.ts";

const d = await desk();

function rawGet(url: string, headers: Record<string, string>): Promise<{ headers: Record<string, unknown>; body: Uint8Array }> {
  return new Promise((resolve, reject) => {
    get(url, { headers }, (response) => {
      const chunks: Uint8Array[] = [];
      response.on("data", (chunk: Uint8Array) => chunks.push(chunk));
      response.on("end", () => resolve({ headers: response.headers, body: new Uint8Array(Buffer.concat(chunks)) }));
      response.on("error", reject);
    }).on("error", reject);
  });
}

/** Chatwoot's own sdk.js is about 165 KB gzipped; the goal is a quarter of it. */
const SCRIPT_BUDGET_GZIPPED = 40 * 1024;

test("sdk.js is served gzipped within 40 KB, as JavaScript, cached by its ETag", async () => {
  const response = await fetch(`${d.root}/packs/js/sdk.js`, { headers: { "accept-encoding": "gzip" } });
  assert.equal(response.status, 200);
  assert.match(response.headers.get("content-type") ?? "", /^text\/javascript/);
  assert.equal(response.headers.get("access-control-allow-origin"), "*");
  // fetch undoes the encoding: measure what goes over the wire with node:http, which leaves it alone
  const raw = await rawGet(`${d.root}/packs/js/sdk.js`, { "accept-encoding": "gzip" });
  assert.equal(raw.headers["content-encoding"], "gzip");
  const wire = raw.body;
  assert.ok(wire.length <= SCRIPT_BUDGET_GZIPPED, `sdk.js is ${wire.length} bytes gzipped`);
  const text = await response.text();
  assert.equal(new TextDecoder().decode(gunzipSync(wire)), text);
  assert.match(text, /window\.chatwootSDK = sdk/);
  const etag = response.headers.get("etag")!;
  const again = await fetch(`${d.root}/packs/js/sdk.js`, { headers: { "if-none-match": etag } });
  assert.equal(again.status, 304);
  await again.body?.cancel();
  const plain = await fetch(`${d.host.baseUrl}/functions/v1/support-api/packs/js/sdk.js`, { headers: { "accept-encoding": "identity" } });
  assert.equal(plain.headers.get("content-encoding"), null);
  assert.equal(await plain.text(), text);
});

test("the /support page: the panel alone, kept out of search engines, mounted on the site's space", async () => {
  const response = await fetch(`${d.host.baseUrl}/support`);
  assert.equal(response.status, 200);
  assert.match(response.headers.get("content-type") ?? "", /^text\/html/);
  assert.equal(response.headers.get("x-robots-tag"), "noindex, nofollow");
  const html = await response.text();
  assert.match(html, /<meta name="robots" content="noindex, nofollow">/);
  assert.match(html, /<script src="\/api\/desk\/packs\/js\/sdk\.js"><\/script>/);
  assert.ok(html.includes(`websiteToken: ${JSON.stringify(d.host.space)}`));
  assert.match(html, /mode: "page"/);
  assert.doesNotMatch(html, /<(nav|header|footer)\b/);
});

/** The desk bot's offer of choices in the thread (an outgoing line without an agent). */
async function offer(conversationId: number): Promise<number> {
  const [row] = await d.host.ctx.sql<{ id: number }[]>`
    insert into public.support_messages (conversation_id, message_type, content, content_type, content_attributes)
    values (${conversationId}, 1, 'What is it about?', 'input_select',
            ${d.host.ctx.sql.json({ items: [{ title: "An order", value: "order" }, { title: "Something else", value: "other" }] })})
    returning id`;
  return row.id;
}

function door(t: { sourceId: string; id: number }, messageId: number) {
  return `${d.root}/widget/v1/inboxes/${d.host.space}/contacts/${t.sourceId}/conversations/${t.id}/messages/${messageId}/choice`;
}

test("a choice is taken once through the widget's door: the offer records it and the title becomes the contact's line", async () => {
  const t = await thread(d);
  const offerId = await offer(t.id);
  const taken = await call("POST", door(t, offerId), { body: { value: "order" } });
  assert.equal(taken.status, 200, JSON.stringify(taken.body));
  const [updated, line] = taken.body.messages;
  assert.equal(updated.id, offerId);
  assert.equal(updated.content_attributes.taken, "order");
  assert.deepEqual(updated.content_attributes.submitted_values, [{ title: "An order", value: "order" }]);
  assert.equal(line.message_type, 0);
  assert.equal(line.content, "An order");
  // the thread's lines, as the client API reads them, hold both
  const lines = await call("GET", `${t.url}/messages`);
  assert.ok(lines.body.some((m: { id: number; content_attributes: { taken?: string } }) => m.id === offerId && m.content_attributes.taken === "order"));
  assert.ok(lines.body.some((m: { id: number }) => m.id === line.id));

  await new Promise((r) => setTimeout(r, 1100)); // past the one-line-a-second guard: the refusal is the offer's own
  const again = await call("POST", door(t, offerId), { body: { value: "other" } });
  assert.equal(again.status, 409);
  assert.deepEqual(again.body.errors, [again.body.error]);
});

test("the door refuses what is not an offered choice, and reaches only the contact's own thread", async () => {
  const t = await thread(d);
  const offerId = await offer(t.id);
  const wrong = await call("POST", door(t, offerId), { body: { value: "refund" } });
  assert.equal(wrong.status, 422);
  const none = await call("POST", door(t, offerId), { body: {} });
  assert.equal(none.status, 422);
  const notJson = await call("POST", door(t, offerId), { body: "{" });
  assert.equal(notJson.status, 400);

  const [plain] = await d.host.ctx.sql<{ id: number }[]>`
    insert into public.support_messages (conversation_id, message_type, content) values (${t.id}, 1, 'plain') returning id`;
  assert.equal((await call("POST", door(t, plain.id), { body: { value: "order" } })).status, 422);
  assert.equal((await call("POST", door(t, 999999999), { body: { value: "order" } })).status, 404);

  const stranger = await thread(d);
  // another contact's token with this thread, and this contact's token with an offer of another thread
  assert.equal((await call("POST", door({ sourceId: stranger.sourceId, id: t.id }, offerId), { body: { value: "order" } })).status, 404);
  const strangersOffer = await offer(stranger.id);
  assert.equal((await call("POST", door(t, strangersOffer), { body: { value: "order" } })).status, 404);
  assert.equal((await call("POST", door({ sourceId: "x".repeat(40), id: t.id }, offerId), { body: { value: "order" } })).status, 404);
  const otherSpace = door(t, offerId).replace(`/inboxes/${d.host.space}/`, "/inboxes/not-this-site/");
  assert.equal((await call("POST", otherSpace, { body: { value: "order" } })).status, 404);

  // nothing of that was taken
  const [still] = await d.host.ctx.sql<{ content_attributes: Record<string, unknown> }[]>`
    select content_attributes from public.support_messages where id = ${offerId}`;
  assert.equal(still.content_attributes.taken, undefined);
});

test("an account's contact takes a choice only with its person's session", async () => {
  const { ensurePerson } = await import("../../../shared/people.ts");
  const person = await ensurePerson(d.host.ctx.sql, `member-${crypto.randomUUID().slice(0, 8)}@desk.test`, "member");
  const jwt = await d.jwt(person);
  const made = await call("POST", `${d.client}/contacts`, { body: {}, bearer: jwt });
  assert.equal(made.status, 200);
  const opened = await call("POST", `${d.client}/contacts/${made.body.source_id}/conversations`, { body: {}, bearer: jwt });
  assert.equal(opened.status, 200);
  const t = { sourceId: made.body.source_id, id: opened.body.id };
  const offerId = await offer(t.id);
  const bare = await call("POST", door(t, offerId), { body: { value: "other" } });
  assert.equal(bare.status, 401);
  const signedIn = await call("POST", door(t, offerId), { body: { value: "other" }, bearer: jwt });
  assert.equal(signedIn.status, 200);
  assert.equal(signedIn.body.messages[1].content, "Something else");
});
