// GET /v2/me, /v2/event-types[/{id|slug}], /v2/schedules[/{id}|/default], /v2/ooo: read-only views of
// the site's hosts and session records.
import type { Context } from "hono";
import type { FunctionContext } from "../../../shared/context.ts";
import { isPrivileged, type SchedulingEnv } from "../access.ts";
import { hostByEmail } from "../domain/catalog.ts";
import { findHost } from "../domain/hosts.ts";
import { notFound, success } from "../envelope.ts";
import { awayOut, eventTypeOut, meOut, scheduleOut } from "../wire.ts";
import { catalogOf, typeListed, visibleType } from "./common.ts";

type C = Context<SchedulingEnv>;

export function catalogRoutes(ctx: FunctionContext) {
  return {
    async me(c: C) {
      const catalog = await catalogOf(ctx, c);
      const caller = c.get("caller");
      const site = c.get("site");
      if (caller.kind === "person") {
        return success(
          c,
          meOut(hostByEmail(catalog, caller.email), { id: caller.id, email: caller.email }, site),
        );
      }
      // a key acts for the site: its first host is the account it speaks for
      return success(c, meOut(catalog.hosts[0], undefined, site));
    },

    async listEventTypes(c: C) {
      const catalog = await catalogOf(ctx, c);
      const caller = c.get("caller");
      const username = c.req.query("username");
      const eventSlug = c.req.query("eventSlug");
      let types = catalog.types.filter((t) => typeListed(t, caller));
      if (username) {
        const host = findHost(catalog.hosts, username);
        types = host ? types.filter((t) => t.hosts.some((h) => h.host.email === host.email)) : [];
      }
      if (eventSlug) types = types.filter((t) => t.slug === eventSlug);
      return success(c, types.map((t) => eventTypeOut(t, ctx.config.publicUrl)));
    },

    async getEventType(c: C) {
      const catalog = await catalogOf(ctx, c);
      return success(
        c,
        eventTypeOut(visibleType(catalog, c.req.param("ref")!, c.get("caller")), ctx.config.publicUrl),
      );
    },

    async listSchedules(c: C) {
      const catalog = await catalogOf(ctx, c);
      const caller = c.get("caller");
      const hosts = isPrivileged(caller)
        ? catalog.hosts
        : catalog.hosts.filter((h) => caller.kind === "person" && h.email === caller.email);
      return success(c, hosts.flatMap((h) => h.schedules.map((s) => scheduleOut(s, h))));
    },

    async getSchedule(c: C) {
      const catalog = await catalogOf(ctx, c);
      const caller = c.get("caller");
      const ref = c.req.param("id")!;
      const own = (email: string) =>
        isPrivileged(caller) || (caller.kind === "person" && caller.email === email);
      for (const h of catalog.hosts) {
        if (!own(h.email)) continue;
        const s = ref === "default"
          ? h.schedules.find((x) => x.isDefault)
          : h.schedules.find((x) => String(x.id) === ref);
        // the default of a key's view is the site's first host's
        if (s) return success(c, scheduleOut(s, h));
      }
      throw notFound(`Schedule ${ref}`);
    },

    async listAway(c: C) {
      const catalog = await catalogOf(ctx, c);
      const caller = c.get("caller");
      const hosts = isPrivileged(caller)
        ? catalog.hosts
        : catalog.hosts.filter((h) => caller.kind === "person" && h.email === caller.email);
      return success(c, hosts.flatMap((h) => h.away.map((a) => awayOut(a, catalog))));
    },
  };
}
