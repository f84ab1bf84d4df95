// Methods a fetch Request cannot carry, and lower-case methods, sent on the wire to the running host:
// each API answers in its own envelope, never the runtime's bare 500.
import assert from "node:assert/strict";
import { test } from "../helpers/test.ts";
import { testHost } from "../helpers/host.ts";
import { rawRequest } from "../helpers/raw-http.ts";
import { type CallerEnv, handToApp } from "../../shared/http.ts";
import { createFunctions } from "../../web/host.ts";

const port = async () => Number(new URL((await testHost()).baseUrl).port);

/** One address of each API and what its 405 looks like. */
const APIS: { name: string; path: (space: string) => string; envelope: (body: any) => boolean }[] = [
  {
    name: "content",
    path: (space) => `/api/content/spaces/${space}/entries`,
    envelope: (body) => body.sys?.type === "Error" && body.sys.id === "BadRequest",
  },
  {
    name: "content at its function address",
    path: (space) => `/functions/v1/content/spaces/${space}/entries`,
    envelope: (body) => body.sys?.type === "Error" && body.sys.id === "BadRequest",
  },
  {
    name: "analytics",
    path: () => "/api/events/e/",
    envelope: (body) => body.type === "invalid_request" && body.code === "method_not_allowed",
  },
  { name: "forms", path: () => "/api/forms", envelope: (body) => body.code === "METHOD_NOT_ALLOWED" },
  { name: "form page", path: () => "/to/contact", envelope: (body) => body.code === "METHOD_NOT_ALLOWED" },
  {
    name: "scheduling",
    path: () => "/api/scheduling/v2/bookings",
    envelope: (body) => body.status === "error" && body.error.code === "METHOD_NOT_ALLOWED",
  },
  {
    name: "store",
    path: () => "/api/2025-01/graphql.json",
    envelope: (body) => body.errors?.[0]?.extensions?.code === "METHOD_NOT_ALLOWED",
  },
];

for (const method of ["TRACE", "TRACK", "trace"]) {
  for (const api of APIS) {
    test(`${method} on the ${api.name} API answers 405 in its envelope`, async () => {
      const host = await testHost();
      const answer = await rawRequest(await port(), method, api.path(host.space));
      assert.equal(answer.status, 405, answer.body);
      assert.ok(api.envelope(JSON.parse(answer.body)), answer.body);
      assert.doesNotMatch(answer.body, /forbidden|stack|at /i);
    });
  }
}

test("a lower-case get and head are served as GET and HEAD", async () => {
  const p = await port();
  const get = await rawRequest(p, "get", "/openapi.json");
  assert.equal(get.status, 200, get.body.slice(0, 300));
  assert.equal(JSON.parse(get.body).openapi.startsWith("3."), true);
  const head = await rawRequest(p, "head", "/functions/v1/content/openapi.json");
  assert.equal(head.status, 200);
  const forms = await rawRequest(p, "get", "/api/forms");
  assert.equal(forms.status, 401, forms.body);
  assert.equal(JSON.parse(forms.body).code, "AUTHENTICATION_FAILED");
});

test("a failure of the entry in front of an app leaves as that API's enveloped 500", async () => {
  const host = await testHost();
  const functions = createFunctions(host.ctx);
  // a request the entry cannot rebuild: reading its method throws, as a broken runtime object would
  const broken = new Request(`${host.baseUrl}/api/scheduling/v2/bookings`);
  Object.defineProperty(broken, "method", { get: () => { throw new Error("secret runtime detail"); } });
  const env: CallerEnv = {};
  const answers: [string, (body: any) => boolean][] = [
    ["scheduling-api", (body) => body.status === "error" && body.error.code === "INTERNAL_SERVER_ERROR"],
    ["content", (body) => body.sys?.id === "ServerError"],
    ["forms-api", (body) => body.code === "INTERNAL_SERVER_ERROR"],
    ["storefront-api", (body) => body.errors?.[0]?.extensions?.code === "INTERNAL_SERVER_ERROR"],
  ];
  for (const [fn, envelope] of answers) {
    const answer = await handToApp(functions[fn], broken, new URL(`${host.baseUrl}/v2/bookings`), env);
    const text = await answer.text();
    assert.equal(answer.status, 500, `${fn}: ${text}`);
    assert.ok(envelope(JSON.parse(text)), `${fn}: ${text}`);
    assert.doesNotMatch(text, /secret runtime detail/);
  }
});
