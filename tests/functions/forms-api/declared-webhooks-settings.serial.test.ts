// A forms webhook declared in the site's configuration (source `file`) receives completed responses
// end to end, signed with its declared secret (serial: it changes the one settings row).
import assert from "node:assert/strict";
import { test } from "../../helpers/test.ts";
import { testHost } from "../../helpers/host.ts";
import { withSettings } from "../../helpers/site-settings.ts";
import { createDispatcher } from "../../../shared/webhooks/dispatcher.ts";
import { formsWebhookAdapter } from "../../../functions/forms-api/webhook-adapter.ts";
import { makeForm, respond } from "./support.ts";

const host = await testHost();

/** Typeform-Signature as a receiver checks it: sha256=<base64 HMAC-SHA256 of the raw body>. */
async function signature(secret: string, body: string): Promise<string> {
  const key = await crypto.subtle.importKey(
    "raw",
    new TextEncoder().encode(secret),
    { name: "HMAC", hash: "SHA-256" },
    false,
    ["sign"],
  );
  const mac = new Uint8Array(await crypto.subtle.sign("HMAC", key, new TextEncoder().encode(body)));
  return `sha256=${btoa(String.fromCharCode(...mac))}`;
}

test("a subscription declared in site.yaml is source file and receives completed responses, signed with its secret", async () => {
  const received: { headers: Headers; body: string }[] = [];
  const server = Deno.serve({ hostname: "127.0.0.1", port: 0, onListen() {} }, async (request) => {
    received.push({ headers: request.headers, body: await request.text() });
    return new Response("ok");
  });
  const url = `http://127.0.0.1:${server.addr.port}/declared`;
  const slug = await makeForm(host, "declared", "name text: Name?\n");
  try {
    await withSettings((config) => {
      config.webhooks = [
        ...(config.webhooks ?? []),
        { api: "forms", form: slug, tag: "from-file", url, secret: "declared secret", enabled: true },
      ];
    }, async () => {
      const [hook] = await host.ctx
        .sql`select tag, source, enabled from public.form_webhooks where form = ${slug}`;
      assert.deepEqual([hook.tag, hook.source, hook.enabled], ["from-file", "file", true]);

      const { token } = await respond(host, slug, { name: "Declared" });
      await createDispatcher({
        sql: host.ctx.sql,
        clock: host.ctx.clock,
        adapters: { forms: formsWebhookAdapter(host.ctx) },
        allowPrivate: true,
        listen: false,
        targets: [url],
      }).runOnce();
      const delivery = received.find((r) => r.body.includes(token));
      assert.ok(delivery, "the declared subscription got the response");
      assert.equal(
        delivery.headers.get("typeform-signature"),
        await signature("declared secret", delivery.body),
      );
      assert.equal(delivery.headers.get("x-form"), slug);
      const [after] = await host.ctx
        .sql`select last_at, last_error from public.form_webhooks where form = ${slug} and tag = 'from-file'`;
      assert.ok(after.last_at);
      assert.equal(after.last_error, null);
    });
    const gone = await host.ctx.sql`select 1 from public.form_webhooks where form = ${slug}`;
    assert.equal(gone.length, 0, "undeclared again, the subscription goes");
  } finally {
    await server.shutdown();
  }
});
