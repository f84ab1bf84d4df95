// POST /v2/intake: booking webhooks of an external scheduler (Cal.com's shape) for the site's types
// that it books. A delivery signed with the intake secret (X-Cal-Signature-256) whose trigger is one
// of ours is re-emitted to our own subscribers, narrowed by event type like a native event, and keeps
// the type's mirrored bookings current (domain/forward.ts applyIntake).
import type { Context } from "hono";
import { readBodyText } from "../../../shared/http.ts";
import type { FunctionContext } from "../../../shared/context.ts";
import { timingSafeEqual } from "../../../shared/ids.ts";
import { hmacSha256Hex } from "../../../shared/webhooks/sign.ts";
import type { SchedulingEnv } from "../access.ts";
import { emit, type Trigger } from "../domain/events.ts";
import { TRIGGERS } from "../../../shared/openapi/enums/scheduling.ts";
import { applyIntake } from "../domain/forward.ts";
import { badRequest, SchedulingError, success } from "../envelope.ts";
import { catalogOf, refuseUnstorableJson } from "./common.ts";

export const INTAKE_SECRET = "scheduling-intake";

export function intakeHandler(ctx: FunctionContext) {
  return async (c: Context<SchedulingEnv>) => {
    const raw = await readBodyText(c.req.raw);
    const catalog = await catalogOf(ctx, c);
    const secret = catalog.sessions.intakeSecret ?? await ctx.secrets.get(INTAKE_SECRET);
    const given = (c.req.header("x-cal-signature-256") ?? c.req.header("x-vendor-signature-256") ?? "").trim()
      .toLowerCase();
    if (!given || !timingSafeEqual(given, await hmacSha256Hex(secret, raw))) {
      throw new SchedulingError(
        "UNAUTHORIZED",
        "The delivery's X-Cal-Signature-256 does not match the intake secret.",
      );
    }
    let body: Record<string, unknown>;
    try {
      body = JSON.parse(raw);
    } catch {
      throw badRequest("The body is not valid JSON.");
    }
    if (!body || typeof body !== "object" || typeof body.triggerEvent !== "string") {
      throw badRequest("triggerEvent is required");
    }
    // the payload is kept in mirrors and re-sent: text Postgres cannot hold is refused here
    refuseUnstorableJson(body);
    const payload = body.payload;
    if (!payload || typeof payload !== "object" || Array.isArray(payload)) {
      throw badRequest("payload must be an object");
    }
    if (!(TRIGGERS as readonly string[]).includes(body.triggerEvent)) {
      // acknowledged so the sender does not retry, but not one we re-emit
      return success(c, { accepted: false, triggerEvent: body.triggerEvent, deliveries: 0 });
    }
    const p = payload as Record<string, unknown>;
    // a booking forwarded from here carries our type's id in its metadata; else the slug or the id match
    const ours = (p.metadata as Record<string, unknown> | undefined)?.sitewireEventTypeId;
    const type = catalog.types.find((t) => ours !== undefined && String(t.id) === String(ours)) ??
      catalog.types.find((t) =>
        t.slug === p.type || (p.eventTypeId !== undefined && t.id === Number(p.eventTypeId))
      );
    const out = { ...p, ...(type ? { type: type.slug, eventTypeId: type.id } : {}) };
    // the mirror changes and the re-emission commit together
    const deliveries = await ctx.sql.begin(async (tx) => {
      if (type) await applyIntake(tx, type, body.triggerEvent as string, p);
      return await emit(tx, body.triggerEvent as Trigger, type?.slug ?? null, out, ctx.clock.now());
    });
    return success(c, { accepted: true, triggerEvent: body.triggerEvent, deliveries });
  };
}
