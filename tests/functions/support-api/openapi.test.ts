// The support section of the served OpenAPI document matches what the desk serves: every documented
// operation is called on the running host with real ids and the right credential, answers one of its
// documented statuses, and a JSON answer is valid against its documented schema.
import assert from "node:assert/strict";
import { Ajv2020 } from "ajv/dist/2020.js";
import { test } from "../../helpers/test.ts";
import { serviceKey } from "../../../shared/service-key.ts";
import { call, desk, freshAddress, thread } from "./desk.ts";

const PNG = Uint8Array.from(atob(
  "iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mP8z8BQDwAEhQGAhKmMIQAAAABJRU5ErkJggg==",
), (ch) => ch.charCodeAt(0));

/** Bodies the operations are called with (the rest take none). */
const BODIES: Record<string, unknown> = {
  supportCreateContact: { custom_attributes: { from: "openapi" } },
  supportUpdateContact: { custom_attributes: { seen: true } },
  supportCreateClientConversation: { path: "/docs" },
  supportCreateClientMessage: { content: "From the document" },
  supportToggleTyping: { typing_status: "off" },
  supportCreateMessage: { content: "Documented", message_type: "outgoing" },
  supportToggleStatus: { status: "open" },
  supportAssign: { assignee_id: null },
  supportAgentTyping: { typing_status: "on" },
  supportSetConversationAttributes: { custom_attributes: { priority: "high" } },
  supportCreateWebhook: { url: "http://127.0.0.1:9/openapi", subscriptions: ["contact_updated"] },
  supportUpdateWebhook: { subscriptions: ["message_updated"] },
};

test("every operation of the support section answers as documented", async () => {
  const d = await desk();
  const doc = await (await fetch(`${d.host.baseUrl}/openapi.json`)).json();
  const ajv = new Ajv2020({ strict: false, validateFormats: false });
  ajv.addSchema({ $id: "https://openapi.test/served.json", components: doc.components });

  const t = await thread(d);
  // a file, for the signed address; an agent's line per withdrawal
  const form = new FormData();
  form.append("attachments[]", new File([PNG], "dot.png", { type: "image/png" }));
  const withFile = await fetch(`${t.url}/messages`, { method: "POST", body: form, headers: { "x-forwarded-for": freshAddress() } });
  const fileUrl = new URL((await withFile.json()).attachments[0].data_url);
  const values = async (): Promise<Record<string, string>> => {
    const line = await call("POST", `${d.app}/conversations/${t.id}/messages`, { key: d.agent.key, body: { content: "to withdraw" } });
    const [hook] = await d.host.ctx.sql<{ id: number }[]>`
      insert into public.support_webhooks (url, subscriptions, secret) values ('http://127.0.0.1:9/doc', '{contact_updated}', 's')
      returning id`;
    return {
      inbox: d.host.space,
      source_id: t.sourceId,
      conversation_id: String(t.id),
      account: "1",
      contact_id: String(t.contactId),
      message_id: String(line.body.id),
      webhook_id: String(hook.id),
      attachment_id: fileUrl.pathname.split("/").pop()!,
    };
  };

  let called = 0;
  for (const [path, item] of Object.entries(doc.paths as Record<string, Record<string, any>>)) {
    if (!path.startsWith("/api/desk/") || path.endsWith("/sdk.js")) continue;
    for (const method of ["get", "post", "patch", "delete"]) {
      const op = item[method];
      if (!op) continue;
      const filled = await values();
      const url = new URL(`${d.host.baseUrl}${path.replace(/\{(\w+)\}/g, (_, name) => filled[name])}`);
      if (op.operationId === "supportGetFile") url.search = fileUrl.search;
      const credential = op.operationId === "supportDeliverWebhooks"
        ? { bearer: await serviceKey(d.host.ctx) }
        : op.security?.length
        ? { key: d.agent.key }
        : {};
      // a second line within a second is refused by design: space the contact's lines out
      if (op.operationId === "supportCreateClientMessage") await new Promise((r) => setTimeout(r, 1100));
      const answer = await call(method.toUpperCase(), url.toString(), { body: BODIES[op.operationId], ...credential });
      const label = `${method} ${path} (${op.operationId}) -> ${answer.status}: ${JSON.stringify(answer.body).slice(0, 200)}`;
      const documented = op.responses[String(answer.status)];
      assert.ok(documented, `undocumented status: ${label}`);
      assert.ok(answer.status < 300, `an error where the call should work: ${label}`);
      const resolved = documented.$ref ? doc.components.responses[documented.$ref.split("/").pop()] : documented;
      const schema = resolved.content?.["application/json"]?.schema;
      if (schema && answer.headers.get("content-type")?.includes("application/json")) {
        const validate = ajv.compile({ $id: `https://openapi.test/op/${op.operationId}`, ...wrap(schema) });
        assert.ok(validate(answer.body), `${label}\n${JSON.stringify(validate.errors)}`);
      }
      called++;
    }
  }
  assert.ok(called >= 30, `${called} operations called`);
  await d.host.ctx.sql`delete from public.support_webhooks where url like 'http://127.0.0.1:9/%'`;
});

/** A schema as written in the document, its #/components refs pointing into the served document. */
function wrap(schema: unknown): Record<string, unknown> {
  return JSON.parse(JSON.stringify(schema).replaceAll('"#/components/', '"https://openapi.test/served.json#/components/'));
}
