// /account/network: the account page (signed in with the site's own session), who that session is, and
// signing every app out at once. Making, listing and revoking app passwords go through the XRPC methods.
import { Hono } from "hono";
import type { FunctionContext } from "../../../shared/context.ts";
import { authenticate } from "../auth.ts";
import { renderAccountPage } from "../pages/account.ts";
import { deleteSessionsOf } from "../store/sessions.ts";
import { appsAllowed, networkSite } from "../xrpc/dispatch.ts";
import { authRequired, methodNotImplemented } from "../xrpc/errors.ts";

export function accountRoutes(ctx: FunctionContext): Hono {
  const app = new Hono();
  const siteOrOff = async () => {
    const site = await networkSite(ctx);
    if (!site) throw methodNotImplemented("The site's network is off.");
    return site;
  };
  /** only the site's own session: an app cannot reach the account page's acts */
  const siteViewer = async (request: Request) => {
    const site = await siteOrOff();
    const viewer = await authenticate(ctx, site, request, "reader", ctx.clock.now());
    if (viewer?.via !== "site") throw authRequired("Sign in on the site: the account page takes the site's session.");
    return viewer;
  };

  app.get("/", async (c) => {
    const site = await siteOrOff();
    c.header("cache-control", "no-store");
    c.header("referrer-policy", "no-referrer");
    return c.html(renderAccountPage({
      siteName: site.settings.name,
      handleDomain: site.handleDomain,
      appsAllowed: appsAllowed(site),
    }));
  });
  app.get("/me", async (c) => {
    const viewer = await siteViewer(c.req.raw);
    return c.json({ handle: viewer.handle, did: viewer.did });
  });
  app.post("/sign-out-everywhere", async (c) => {
    const viewer = await siteViewer(c.req.raw);
    return c.json({ ended: await deleteSessionsOf(ctx.sql, viewer.id) });
  });
  return app;
}
