// The support desk's route table (Chatwoot-compatible): read this first.
//
// Client API, no key (routes/client.ts); <inbox> is the site's space id, <sid> the contact's token:
//   POST   {client}/<inbox>/contacts                                   a guest (or the session's account contact)
//   GET    {client}/<inbox>/contacts/<sid>, PATCH                      the contact; attributes merged
//   GET    {client}/<inbox>/contacts/<sid>/conversations, POST         its threads; a new thread
//   GET    {client}/<inbox>/contacts/<sid>/conversations/<id>          one thread
//   GET    .../conversations/<id>/messages?after=, POST                lines; the contact's line
//   POST   .../conversations/<id>/toggle_typing | update_last_seen | toggle_status
//   where {client} is /public/api/v1/inboxes (what a Chatwoot client computes) or the spec's
//   /public/api/desk/api/v1/inboxes
// Application API, a support key whose maker is on the desk ({app} = /api/v1/accounts/<any>):
//   GET    {app}/conversations?status&assignee_type&page               routes/conversations.ts
//   GET    {app}/conversations/<id>, .../messages; POST .../messages   one thread, its lines, an agent's line
//   DELETE {app}/conversations/<id>/messages/<id>                      withdraw a line (content null, deleted)
//   POST   {app}/conversations/<id>/toggle_status | assignments | toggle_typing_status | update_last_seen
//          | custom_attributes
//   GET    {app}/contacts?page, {app}/contacts/<id>, .../conversations routes/contacts.ts
//   GET    {app}/inboxes, {app}/agents, /api/v1/profile                routes/desk.ts
//   GET    {app}/webhooks, POST; PATCH|DELETE {app}/webhooks/<id>      routes/webhooks.ts
// Other:
//   GET    /files/<id>?expires&signature                               a line's file (routes/files.ts)
//   POST   /webhooks/deliver, /deliver                                 due deliveries, service key (shared delivery route)
//
// Paths are relative to the function root: the host maps /api/desk/* and /functions/v1/support-api/* here.
import { Hono } from "hono";
import type { FunctionContext } from "../../shared/context.ts";
import { answerEntryRefusal, openCors, requestId } from "../../shared/http.ts";
import { webhookDeliveryHandler } from "../../shared/webhooks/delivery-route.ts";
import { deskAccess, type SupportEnv } from "./access.ts";
import { methodNotAllowed, notFound, supportErrorHandler, unauthorized } from "./envelope.ts";
import { cableRoutes } from "./routes/cable.ts";
import { clientRoutes } from "./routes/client.ts";
import { refuseUnstorableText } from "./routes/common.ts";
import { contactRoutes } from "./routes/contacts.ts";
import { conversationRoutes } from "./routes/conversations.ts";
import { deskRoutes } from "./routes/desk.ts";
import { fileHandler } from "./routes/files.ts";
import { webhookRoutes } from "./routes/webhooks.ts";
import { widgetRoutes } from "./routes/widget.ts";
import { webhookAdapters } from "./webhook-adapter.ts";

export function createSupportApp(ctx: FunctionContext): Hono<SupportEnv> {
  const app = new Hono<SupportEnv>({ strict: false });
  app.use("*", requestId("X-Request-Id"));
  app.use("*", answerEntryRefusal(methodNotAllowed));
  app.use("*", openCors({ allowHeaders: ["api_access_token"], exposeHeaders: ["X-Request-Id", "Retry-After"] }));
  app.onError(supportErrorHandler);
  app.use("*", refuseUnstorableText);
  app.notFound(() => {
    throw notFound("Route");
  });

  // ---- 12b: widget, cable, panel page (no key; mounted before the APIs) ----
  app.route("/cable", cableRoutes(ctx)); //                        the live channel (routes/cable.ts)
  app.route("/", widgetRoutes(ctx)); //                            /packs/js/sdk.js, /support, the choice door
  // ---- end 12b ----

  app.get("/files/:id", fileHandler(ctx));
  // the database's calls (pg_net, pg_cron) at /webhooks/deliver, as every function's; /deliver is the spec's name
  const deliver = webhookDeliveryHandler(ctx, webhookAdapters(ctx), () => unauthorized("Webhook delivery needs the service key."));
  app.post("/webhooks/deliver", deliver);
  app.post("/deliver", deliver);

  const client = clientRoutes(ctx);
  app.route("/public/api/v1/inboxes", client);
  app.route("/public/api/desk/api/v1/inboxes", client);

  const desk = new Hono<SupportEnv>({ strict: false });
  desk.use("*", deskAccess(ctx));
  const conversations = conversationRoutes(ctx);
  desk.get("/conversations", conversations.list);
  desk.get("/conversations/:id", conversations.get);
  desk.get("/conversations/:id/messages", conversations.messages);
  desk.post("/conversations/:id/messages", conversations.reply);
  desk.delete("/conversations/:id/messages/:messageId", conversations.withdraw);
  desk.post("/conversations/:id/toggle_status", conversations.toggleStatus);
  desk.post("/conversations/:id/assignments", conversations.assign);
  desk.post("/conversations/:id/toggle_typing_status", conversations.typing);
  desk.post("/conversations/:id/custom_attributes", conversations.attributes);
  desk.post("/conversations/:id/update_last_seen", conversations.read);
  const contacts = contactRoutes(ctx);
  desk.get("/contacts", contacts.list);
  desk.get("/contacts/:id", contacts.get);
  desk.get("/contacts/:id/conversations", contacts.conversations);
  const deskInfo = deskRoutes(ctx);
  desk.get("/inboxes", deskInfo.inboxes);
  desk.get("/agents", deskInfo.agents);
  const webhooks = webhookRoutes(ctx);
  desk.get("/webhooks", webhooks.list);
  desk.post("/webhooks", webhooks.create);
  desk.patch("/webhooks/:id", webhooks.update);
  desk.put("/webhooks/:id", webhooks.update);
  desk.delete("/webhooks/:id", webhooks.remove);
  app.route("/api/v1/accounts/:account", desk);

  const profile = new Hono<SupportEnv>({ strict: false });
  profile.use("*", deskAccess(ctx));
  profile.get("/", deskInfo.profile);
  app.route("/api/v1/profile", profile);
  return app;
}
