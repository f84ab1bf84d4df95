// The application API's webhooks: list, make (the signing secret shown once, in this answer), change the
// url or the subscriptions, remove. Bodies flat or under `webhook`.
import type { Context } from "hono";
import type { FunctionContext } from "../../../shared/context.ts";
import { randomBase62 } from "../../../shared/ids.ts";
import { checkOutboundUrl, literalPrivateTarget, webhookUrlProblem } from "../../../shared/webhooks/url-guard.ts";
import type { SupportEnv } from "../access.ts";
import { subscriptionList, webhookFields } from "../domain/webhooks.ts";
import { webhook } from "../domain/wire.ts";
import { notFound, unprocessable, webhookBody, webhookListBody } from "../envelope.ts";
import { createWebhook, deleteWebhook, listWebhooks, updateWebhook } from "../store/webhooks.ts";
import { idParam, readBody } from "./common.ts";

type C = Context<SupportEnv>;

export function webhookRoutes(ctx: FunctionContext) {
  const allowPrivate = ctx.config.allowPrivateWebhookTargets === true;

  /** A url the desk can deliver to: well formed, and not private where the site does not allow that. */
  async function checkedUrl(value: unknown): Promise<string> {
    const url = typeof value === "string" ? value.trim() : "";
    const problem = webhookUrlProblem(url) ?? (allowPrivate ? undefined : literalPrivateTarget(url));
    if (problem) throw unprocessable(`url: ${problem}.`);
    if (!allowPrivate) {
      const check = await checkOutboundUrl(url, { allowPrivate });
      // a name that does not resolve now may later; one that resolves to a private address never passes
      if (!check.ok && !check.transient) throw unprocessable(`url: ${check.reason}.`);
    }
    return url;
  }

  function checkedEvents(value: unknown): string[] {
    const events = subscriptionList(value);
    if ("problem" in events) throw unprocessable(events.problem);
    return events;
  }

  return {
    async list(c: C) {
      return c.json(webhookListBody((await listWebhooks(ctx.sql)).map((row) => webhook(row))), 200);
    },
    async create(c: C) {
      const fields = webhookFields(await readBody(c));
      const url = await checkedUrl(fields.url);
      const subscriptions = checkedEvents(fields.subscriptions);
      const secret = randomBase62(32);
      const row = await createWebhook(ctx.sql, { url, subscriptions, secret, createdBy: c.get("agent").personId });
      return c.json(webhookBody(webhook(row, secret)), 201);
    },
    async update(c: C) {
      const id = idParam(c, "id", "Webhook");
      const fields = webhookFields(await readBody(c));
      const change = {
        url: fields.url === undefined ? undefined : await checkedUrl(fields.url),
        subscriptions: fields.subscriptions === undefined ? undefined : checkedEvents(fields.subscriptions),
      };
      const row = await updateWebhook(ctx.sql, id, change);
      if (!row) throw notFound("Webhook");
      return c.json(webhookBody(webhook(row)), 200);
    },
    async remove(c: C) {
      if (!await deleteWebhook(ctx.sql, idParam(c, "id", "Webhook"))) throw notFound("Webhook");
      return c.body(null, 204);
    },
  };
}
