// The application API's desk: its one inbox, its agents, and the key maker's profile (never a key).
import type { Context } from "hono";
import type { FunctionContext } from "../../../shared/context.ts";
import { spaceId } from "../../../shared/site.ts";
import type { SupportEnv } from "../access.ts";
import { deskSettings } from "../domain/desk.ts";
import { inbox } from "../domain/wire.ts";
import { payloadBody } from "../envelope.ts";
import { deskAgent, deskAgents } from "../store/agents.ts";

type C = Context<SupportEnv>;

export function deskRoutes(ctx: FunctionContext) {
  return {
    inboxes(c: C) {
      const site = c.get("site");
      return c.json(payloadBody([inbox(deskSettings(site), spaceId(site))]), 200);
    },
    async agents(c: C) {
      return c.json(await deskAgents(ctx.sql), 200);
    },
    async profile(c: C) {
      const agent = (await deskAgent(ctx.sql, c.get("agent").agentId))!;
      const site = c.get("site");
      return c.json({
        ...agent,
        display_name: agent.name,
        avatar_url: "",
        ui_settings: {},
        account_id: 1,
        accounts: [{ id: 1, name: site.name, role: agent.role, status: "active", active_at: null }],
      }, 200);
    },
  };
}
