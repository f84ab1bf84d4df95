// The widget's own routes (no key):
//   GET  /packs/js/sdk.js        the widget script (public /api/desk/packs/js/sdk.js, where Chatwoot's
//                                install snippet loads it from)
//   GET  /support                the panel on its own page (noindex, no chrome)
//   POST /widget/v1/inboxes/:inbox/contacts/:sid/conversations/:id/messages/:message/choice  { value }
//                                takes an offer of choices once: marks it taken and posts the chosen
//                                item's title as the contact's line, in one transaction
import { Hono } from "hono";
import type { FunctionContext } from "../../../shared/context.ts";
import type { RequestIdVariables } from "../../../shared/http.ts";
import { defaultLocale, spaceId } from "../../../shared/site.ts";
import { clientAccess, clientContactOf, type SupportEnv } from "../access.ts";
import { pickChoice } from "../domain/choices.ts";
import { deskSettings } from "../domain/desk.ts";
import { notFound, SupportError } from "../envelope.ts";
import { signMessageFiles } from "../files.ts";
import { postContactLine } from "../lines.ts";
import { supportPageHtml } from "../pages/support.ts";
import { lockOffer, markTaken } from "../store/choices.ts";
import { contactConversation } from "../store/conversations.ts";
import { messageJson } from "../store/messages.ts";
import { idParam, readBody } from "./common.ts";

const SDK_SOURCE = new URL("../../../web/support/sdk.js", import.meta.url);

type WidgetScript = { plain: Uint8Array<ArrayBuffer>; gzip: Uint8Array<ArrayBuffer>; etag: string };
let script: Promise<WidgetScript> | undefined;

/** The script, read once, with its gzip form (the size a browser downloads) and an ETag. */
export function widgetScript(): Promise<WidgetScript> {
  script ??= (async () => {
    const plain = await Deno.readFile(SDK_SOURCE);
    const gzip = new Uint8Array(
      await new Response(new Blob([plain]).stream().pipeThrough(new CompressionStream("gzip"))).arrayBuffer(),
    );
    const digest = new Uint8Array(await crypto.subtle.digest("SHA-256", plain));
    const etag = `"${Array.from(digest.slice(0, 12), (b) => b.toString(16).padStart(2, "0")).join("")}"`;
    return { plain, gzip, etag };
  })();
  script.catch(() => (script = undefined));
  return script;
}

export function widgetRoutes(ctx: FunctionContext): Hono<SupportEnv & { Variables: RequestIdVariables }> {
  const app = new Hono<SupportEnv & { Variables: RequestIdVariables }>();

  app.get("/packs/js/sdk.js", async (c) => {
    const { plain, gzip, etag } = await widgetScript();
    const headers: Record<string, string> = {
      "content-type": "text/javascript; charset=utf-8",
      "cache-control": "public, max-age=300",
      etag,
      vary: "Accept-Encoding",
    };
    if (c.req.header("if-none-match") === etag) return new Response(null, { status: 304, headers });
    const gzipped = /\bgzip\b/.test(c.req.header("accept-encoding") ?? "");
    if (gzipped) headers["content-encoding"] = "gzip";
    return new Response(gzipped ? gzip : plain, { headers });
  });

  app.get("/support", clientAccess(ctx), (c) => {
    const site = c.get("site");
    const html = supportPageHtml({ title: deskSettings(site).name, space: spaceId(site), lang: defaultLocale(site).code });
    return c.html(html, 200, { "x-robots-tag": "noindex, nofollow", "cache-control": "no-store" });
  });

  app.post(
    "/widget/v1/inboxes/:inbox/contacts/:sid/conversations/:id/messages/:message/choice",
    clientAccess(ctx),
    async (c) => {
      const body = await readBody(c);
      // the client routes' own rules: the inbox is the site's space, the token names the contact, an
      // account's contact needs its person's session
      const contact = await clientContactOf(ctx, c);
      const conversationId = idParam(c, "id", "Conversation");
      const offerId = idParam(c, "message", "Message");
      const messages = await ctx.sql.begin(async (tx) => {
        const conversation = await contactConversation(tx, contact.id, conversationId);
        if (!conversation) throw notFound("Conversation");
        const offer = await lockOffer(tx, conversationId, offerId);
        if (!offer) throw notFound("Message");
        const picked = pickChoice(offer, body.value);
        if ("problem" in picked) throw new SupportError(picked.taken ? 409 : 422, picked.problem);
        await markTaken(tx, offer.id, picked.item);
        const lines = await postContactLine(ctx, tx, {
          contactId: contact.id,
          conversationId,
          content: picked.item.title,
        });
        return [await messageJson(tx, offer.id), ...lines];
      });
      return c.json({ messages: await Promise.all(messages.map((m) => signMessageFiles(ctx, m))) });
    },
  );

  return app;
}
