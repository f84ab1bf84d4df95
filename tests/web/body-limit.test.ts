// One body limit for every API (shared/http.ts MAX_REQUEST_BODY_BYTES, 1 MB): a larger body is 413 in
// each API's own envelope, whether it declares its length or streams in chunks.
import assert from "node:assert/strict";
import { test } from "../helpers/test.ts";
import { testHost } from "../helpers/host.ts";
import { MAX_REQUEST_BODY_BYTES } from "../../shared/http.ts";

const host = await testHost();
const keys = {
  delivery: await host.key("delivery"),
  forms: await host.key("forms"),
  scheduling: await host.key("scheduling"),
  storefront: await host.key("storefront"),
};
const PAD = "x".repeat(MAX_REQUEST_BODY_BYTES + 200_000);
const forms = await fetch(`${host.baseUrl}/api/forms?page_size=1`, { headers: { authorization: `Bearer ${keys.forms}` } });
const formId = (await forms.json()).items[0].id;

const APIS: { name: string; url: string; method: string; headers: Record<string, string>; body: unknown; envelope: (body: any) => boolean }[] = [
  {
    name: "content GraphQL",
    url: `${host.baseUrl}/api/content/content/v1/spaces/${host.space}/environments/master`,
    method: "POST",
    headers: { authorization: `Bearer ${keys.delivery}` },
    body: { query: "{ __typename }", variables: { pad: PAD } },
    envelope: (body) => body.errors[0].extensions.contentful.code === "PAYLOAD_TOO_LARGE",
  },
  {
    name: "forms",
    url: `${host.baseUrl}/api/forms/${formId}/webhooks/big`,
    method: "PUT",
    headers: { authorization: `Bearer ${keys.forms}` },
    body: { url: "https://hooks.example/x", secret: PAD },
    envelope: (body) => body.code === "PAYLOAD_TOO_LARGE",
  },
  {
    name: "scheduling",
    url: `${host.baseUrl}/api/scheduling/v2/webhooks`,
    method: "POST",
    headers: { authorization: `Bearer ${keys.scheduling}` },
    body: { subscriberUrl: "https://hooks.example/x", triggers: ["BOOKING_CREATED"], payloadTemplate: PAD },
    envelope: (body) => body.status === "error" && body.error.code === "PAYLOAD_TOO_LARGE",
  },
  {
    name: "store",
    url: `${host.baseUrl}/api/2025-01/graphql.json`,
    method: "POST",
    headers: { "x-shopify-storefront-access-token": keys.storefront },
    body: { query: "{ shop { name } }", variables: { pad: PAD } },
    envelope: (body) => body.errors[0].extensions.code === "PAYLOAD_TOO_LARGE",
  },
];

for (const api of APIS) {
  test(`${api.name}: a body over 1 MB is 413 in the API's envelope, declared or streamed`, async () => {
    const text = JSON.stringify(api.body);
    const declared = await fetch(api.url, {
      method: api.method,
      headers: { ...api.headers, "content-type": "application/json" },
      body: text,
    });
    const declaredBody = await declared.text();
    assert.equal(declared.status, 413, declaredBody.slice(0, 300));
    assert.ok(api.envelope(JSON.parse(declaredBody)), declaredBody.slice(0, 300));

    const bytes = new TextEncoder().encode(text);
    const streamed = await fetch(api.url, {
      method: api.method,
      headers: { ...api.headers, "content-type": "application/json" },
      body: new ReadableStream({
        start(controller) {
          for (let at = 0; at < bytes.length; at += 64 * 1024) controller.enqueue(bytes.slice(at, at + 64 * 1024));
          controller.close();
        },
      }),
      // @ts-ignore: Deno's fetch takes duplex for a streamed body
      duplex: "half",
    });
    const streamedBody = await streamed.text();
    assert.equal(streamed.status, 413, streamedBody.slice(0, 300));
    assert.ok(api.envelope(JSON.parse(streamedBody)), streamedBody.slice(0, 300));
  });
}
