// /v2/webhooks: subscriptions, key only (a person's JWT, administrators' too, is 405). Addressed by the
// integer id or the row's uuid. The secret is stored, used to sign, and never answered.
import type { Context } from "hono";
import type { FunctionContext } from "../../../shared/context.ts";
import { webhookTargetProblem } from "../../../shared/webhooks/url-guard.ts";
import type { SchedulingEnv } from "../access.ts";
import { findType } from "../domain/catalog.ts";
import { TRIGGERS } from "../../../shared/openapi/enums/scheduling.ts";
import { badRequest, methodNotAllowed, notFound, pagination, success } from "../envelope.ts";
import * as webhookStore from "../store/webhooks.ts";
import { webhookOut } from "../wire.ts";
import { catalogOf, intParam, jsonBody } from "./common.ts";

type C = Context<SchedulingEnv>;

function keyOnly(c: C): void {
  if (c.get("caller").kind !== "key") throw methodNotAllowed("Webhooks are managed with a scheduling key.");
}

async function parseFields(ctx: FunctionContext, c: C, body: Record<string, unknown>, partial: boolean) {
  const out: Partial<webhookStore.WebhookRow> = {};
  if (!partial || body.subscriberUrl !== undefined) {
    if (typeof body.subscriberUrl !== "string") throw badRequest("subscriberUrl is required");
    const problem = webhookTargetProblem(body.subscriberUrl, ctx.config.allowPrivateWebhookTargets);
    if (problem) throw badRequest(`subscriberUrl is refused: ${problem}`);
    out.subscriber_url = body.subscriberUrl;
  }
  if (!partial || body.triggers !== undefined) {
    const t = body.triggers;
    if (!Array.isArray(t) || !t.length) {
      throw badRequest(`triggers must be a non-empty list of ${TRIGGERS.join(", ")}`);
    }
    for (const x of t) {
      if (!(TRIGGERS as readonly string[]).includes(x)) {
        throw badRequest(`unsupported trigger ${x}; supported: ${TRIGGERS.join(", ")}`);
      }
    }
    out.triggers = [...new Set(t as string[])];
  }
  if (body.active !== undefined) {
    if (typeof body.active !== "boolean") throw badRequest("active must be true or false");
    out.active = body.active;
  }
  if (body.secret !== undefined) {
    if (body.secret !== null && (typeof body.secret !== "string" || body.secret.length > 256)) {
      throw badRequest("secret must be a string");
    }
    out.secret = body.secret as string | null;
  }
  if (body.payloadTemplate !== undefined) {
    if (
      body.payloadTemplate !== null &&
      (typeof body.payloadTemplate !== "string" || body.payloadTemplate.length > 20_000)
    ) {
      throw badRequest("payloadTemplate must be a string");
    }
    out.payload_template = body.payloadTemplate as string | null;
  }
  if (body.eventTypeId !== undefined) {
    if (body.eventTypeId === null) out.event_type_slug = null;
    else {
      if (!/^\d+$/.test(String(body.eventTypeId))) throw badRequest("eventTypeId must be an integer");
      const type = findType(await catalogOf(ctx, c), String(body.eventTypeId));
      if (!type) throw badRequest(`eventTypeId ${body.eventTypeId} is not an event type of this site`);
      out.event_type_slug = type.slug;
    }
  }
  return out;
}

export function webhookRoutes(ctx: FunctionContext) {
  const byRef = async (c: C) => {
    const row = await webhookStore.webhookByRef(ctx.sql, c.req.param("ref")!);
    if (!row) throw notFound(`Webhook ${c.req.param("ref")}`);
    return row;
  };
  return {
    async list(c: C) {
      keyOnly(c);
      const take = intParam(c.req.query("take"), "take", 1, 250, 100);
      const skip = intParam(c.req.query("skip"), "skip", 0, 1_000_000, 0);
      const { rows, total } = await webhookStore.listWebhooks(ctx.sql, take, skip);
      const catalog = await catalogOf(ctx, c);
      return success(c, rows.map((w) => webhookOut(w, catalog)), 200, {
        pagination: pagination(total, take, skip),
      });
    },
    async create(c: C) {
      keyOnly(c);
      const fields = await parseFields(ctx, c, await jsonBody(c), false);
      const caller = c.get("caller");
      const row = await webhookStore.insertWebhook(ctx.sql, {
        subscriber_url: fields.subscriber_url!,
        triggers: fields.triggers!,
        active: fields.active ?? true,
        secret: fields.secret ?? null,
        payload_template: fields.payload_template ?? null,
        event_type_slug: fields.event_type_slug ?? null,
        created_by: caller.kind === "key" ? `key:${caller.keyId}` : null,
      });
      return success(c, webhookOut(row, await catalogOf(ctx, c)), 201);
    },
    async get(c: C) {
      keyOnly(c);
      return success(c, webhookOut(await byRef(c), await catalogOf(ctx, c)));
    },
    async update(c: C) {
      keyOnly(c);
      const row = await byRef(c);
      const fields = await parseFields(ctx, c, await jsonBody(c), true);
      const updated = Object.keys(fields).length
        ? await webhookStore.updateWebhook(ctx.sql, row.id, fields)
        : row;
      return success(c, webhookOut(updated, await catalogOf(ctx, c)));
    },
    async remove(c: C) {
      keyOnly(c);
      const row = await byRef(c);
      await webhookStore.deleteWebhook(ctx.sql, row.id);
      return success(c, webhookOut(row, await catalogOf(ctx, c)));
    },
  };
}
