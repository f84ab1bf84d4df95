// The forms function's route table: read this first.
//
// Forms API (a key of kind forms on every request; Typeform-compatible):
//   GET  /me                                        the key's user
//   GET  /workspaces, /workspaces/default           the one workspace (the site)
//   GET  /forms                                     list (search, page, page_size 1-200)
//   POST /forms                                     create (cloud mode)
//   GET|PUT|PATCH|DELETE /forms/:id                 read; replace, patch, delete (cloud mode)
//   GET|DELETE /forms/:id/responses                 list (every argument), delete with answers and files
//   GET  /forms/:id/responses/:token/fields/:ref/files/:name   302 to a signed address (one hour)
//   GET  /forms/:id/webhooks, GET|PUT|DELETE /forms/:id/webhooks/:tag
//   GET  /insights/:id/summary
//   /themes/..., /images/...                        always NOT_FOUND
//
// Form page (no key, routes/page.ts): /to/:slug and its response routes.
// POST /webhooks/deliver                          the forms API's due webhooks, service key; pg_net and
//                                                 pg_cron call it on Supabase (webhook-adapter.ts)
//
// Paths are relative to the function root: the host maps /api/forms, /api/me, /api/workspaces,
// /api/insights, /v1/*, /to/*, /form/* and /functions/v1/forms-api/* here.
import { Hono } from "hono";
import type { FunctionContext } from "../../shared/context.ts";
import { RATE_LIMIT_HEADER_NAMES } from "../../shared/gate.ts";
import { answerEntryRefusal, openCors, requestId } from "../../shared/http.ts";
import { formsAccess, type FormsEnv, pageAccess } from "./access.ts";
import { FormsError, formsErrorHandler, notFound } from "./envelope.ts";
import { refuseUnstorable } from "./request.ts";
import { accountRoutes } from "./routes/account.ts";
import { formRoutes } from "./routes/forms.ts";
import { insightRoutes } from "./routes/insights.ts";
import { pageRoutes } from "./routes/page.ts";
import { responseRoutes } from "./routes/responses.ts";
import { webhookRoutes } from "./routes/webhooks.ts";
import { webhookDeliveryHandler } from "../../shared/webhooks/delivery-route.ts";
import { webhookAdapters } from "./webhook-adapter.ts";

export function createFormsApp(ctx: FunctionContext): Hono<FormsEnv> {
  const app = new Hono<FormsEnv>({ strict: false });
  app.use("*", requestId("X-Request-Id"));
  app.use(
    "*",
    answerEntryRefusal((method) => new FormsError("METHOD_NOT_ALLOWED", `The method ${method} is not allowed.`)),
  );
  app.use(
    "*",
    openCors({
      allowHeaders: ["X-File-Name"],
      exposeHeaders: ["X-Request-Id", ...RATE_LIMIT_HEADER_NAMES],
    }),
  );
  app.onError(formsErrorHandler);
  app.notFound(() => {
    throw notFound("No such route in the Forms API.");
  });

  const page = new Hono<FormsEnv>({ strict: true });
  page.onError(formsErrorHandler);
  page.use("*", pageAccess(ctx));
  page.use("*", refuseUnstorable());
  page.route("/", pageRoutes(ctx));
  // the page's own catch-all: an unknown /to address must not fall through to the keyed API
  page.all("*", () => {
    throw notFound("No such address of the form page.");
  });
  app.route("/to", page);

  // the database's delivery call presents the service key, which is no API key: registered before the API
  app.post(
    "/webhooks/deliver",
    webhookDeliveryHandler(
      ctx,
      webhookAdapters(ctx),
      () => new FormsError("AUTHENTICATION_FAILED", "Webhook delivery needs the service key."),
    ),
  );

  const api = new Hono<FormsEnv>({ strict: false });
  api.onError(formsErrorHandler);
  api.use("*", formsAccess(ctx));
  api.use("*", refuseUnstorable());
  api.route("/", accountRoutes(ctx));
  api.route("/forms/:id/responses", responseRoutes(ctx));
  api.route("/forms/:id/webhooks", webhookRoutes(ctx));
  api.route("/forms", formRoutes(ctx));
  api.route("/insights", insightRoutes(ctx));
  api.all("/themes/*", () => {
    throw notFound("Forms use the site's design: there are no themes.");
  });
  api.all("/themes", () => {
    throw notFound("Forms use the site's design: there are no themes.");
  });
  api.all("/images/*", () => {
    throw notFound("Forms use the site's media library: there is no images API.");
  });
  api.all("/images", () => {
    throw notFound("Forms use the site's media library: there is no images API.");
  });
  api.all("*", () => {
    throw notFound("No such route in the Forms API.");
  });
  app.route("/", api);
  return app;
}
