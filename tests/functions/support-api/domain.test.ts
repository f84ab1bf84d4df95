// The desk's pure rules: the desk's toggle, the list's filters, what a line may be, attribute merge,
// webhook subscriptions, and the desk's texts from the site's configuration.
import assert from "node:assert/strict";
import { test } from "../../helpers/test.ts";
import { deskToggle, listFilters, pageNumber, typingOn } from "../../../functions/support-api/domain/conversations.ts";
import { agentLineProblem, contactLineProblem, echoId } from "../../../functions/support-api/domain/lines.ts";
import { contactChange, mergeAttributes } from "../../../functions/support-api/domain/contacts.ts";
import { subscriptionList, webhookFields } from "../../../functions/support-api/domain/webhooks.ts";
import { DEFAULT_ACKNOWLEDGEMENT, deskSettings } from "../../../functions/support-api/domain/desk.ts";
import type { SiteSettings } from "../../../shared/site.ts";

test("the desk's toggle: the status asked for, else resolved, or open again when it was resolved", () => {
  assert.equal(deskToggle("open", "pending"), "pending");
  assert.equal(deskToggle("resolved", "resolved"), "resolved");
  assert.equal(deskToggle("open", undefined), "resolved");
  assert.equal(deskToggle("pending", undefined), "resolved");
  assert.equal(deskToggle("resolved", undefined), "open");
});

test("the list's filters default to open, all assignees, page 1, and refuse what they do not know", () => {
  assert.deepEqual(listFilters({}), { status: "open", assignee: "all", page: 1 });
  assert.deepEqual(listFilters({ status: "all", assignee_type: "me", page: "3" }), { status: "all", assignee: "me", page: 3 });
  assert.ok("problem" in listFilters({ status: "snoozed" }));
  assert.ok("problem" in listFilters({ assignee_type: "team" }));
  assert.ok("problem" in listFilters({ page: "0" }));
  assert.equal(pageNumber("1e3"), undefined);
  assert.equal(typingOn("on"), true);
  assert.equal(typingOn("typing_off"), false);
  assert.equal(typingOn("yes"), undefined);
});

test("a contact's line: text of 1 to 4000 characters (counted as characters, not UTF-16 units), or files alone", () => {
  assert.equal(contactLineProblem("x".repeat(4000)), undefined);
  assert.match(contactLineProblem("x".repeat(4001))!, /4000/);
  assert.equal(contactLineProblem("😀".repeat(4000)), undefined);
  assert.ok(contactLineProblem("   "));
  assert.ok(contactLineProblem(42));
  assert.ok(contactLineProblem("a\u0000b"));
  assert.equal(contactLineProblem(undefined, true), undefined);
  assert.equal(echoId(7), "7");
  assert.equal(echoId(undefined), null);
  assert.equal(echoId({}), undefined);
});

test("an agent's line: outgoing only, never a private note", () => {
  assert.equal(agentLineProblem({ content: "hi" }), undefined);
  assert.equal(agentLineProblem({ content: "hi", message_type: "outgoing" }), undefined);
  assert.equal(agentLineProblem({ content: "hi", message_type: 1 }), undefined);
  assert.match(agentLineProblem({ content: "hi", private: true })!, /Private/);
  assert.match(agentLineProblem({ content: "hi", message_type: "incoming" })!, /outgoing/);
  assert.match(agentLineProblem({ content: "hi", message_type: "template" })!, /outgoing/);
});

test("a visitor's attributes merge (null removes); a given name or email lands among them, an identifier apart", () => {
  const change = contactChange({ custom_attributes: { a: null, b: 2 }, name: "N", email: "e@x.test", identifier: 42 });
  assert.ok(!("problem" in change));
  if ("problem" in change) return;
  assert.deepEqual(mergeAttributes({ a: 1, c: 3 }, change), { c: 3, b: 2, name: "N", email: "e@x.test" });
  assert.equal(change.identifier, "42");
  assert.ok("problem" in contactChange({ custom_attributes: [] }));
  assert.ok("problem" in contactChange({ identifier: { id: 1 } }));
  assert.ok("problem" in contactChange({ custom_attributes: { big: "x".repeat(20000) } }));
});

test("webhook bodies flat or under webhook; unknown events dropped, none known refused", () => {
  assert.deepEqual(webhookFields({ url: "u", subscriptions: ["a"] }), { url: "u", subscriptions: ["a"] });
  assert.deepEqual(webhookFields({ webhook: { url: "v", subscriptions: [] } }), { url: "v", subscriptions: [] });
  assert.deepEqual(subscriptionList(["message_created", "nope", "message_created", "webwidget_triggered"]), [
    "message_created",
    "webwidget_triggered",
  ]);
  assert.ok("problem" in (subscriptionList(["nope"]) as object));
  assert.ok("problem" in (subscriptionList("message_created") as object));
});

test("the desk's texts come from support: in the site's configuration, with a default acknowledgement", () => {
  const site = (config: Record<string, unknown>) => ({ name: "Site", domain: "site.test", config } as unknown as SiteSettings);
  assert.deepEqual(deskSettings(site({})), {
    name: "Site",
    prompt: undefined,
    acknowledgement: DEFAULT_ACKNOWLEDGEMENT,
    websiteUrl: "https://site.test",
  });
  const configured = deskSettings(site({ support: { name: "Help", prompt: { id: "p1", text: "Hi" }, acknowledgement: "Got it" } }));
  assert.deepEqual(configured.prompt, { id: "p1", text: "Hi" });
  assert.equal(configured.name, "Help");
  assert.equal(configured.acknowledgement, "Got it");
  assert.deepEqual(deskSettings(site({ support: { prompt: "Hello" } })).prompt, { id: "default", text: "Hello" });
});
