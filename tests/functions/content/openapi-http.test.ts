// The OpenAPI document as served: both addresses, no key, valid OpenAPI 3.1 for the demo site.
import assert from "node:assert/strict";
import SwaggerParser from "@apidevtools/swagger-parser";
import { test } from "../../helpers/test.ts";
import { testHost } from "../../helpers/host.ts";
import { lintErrors, redoclyLint } from "../../shared/openapi/lint.ts";
import { createFunctions } from "../../../web/host.ts";
import { rewrite } from "../../../web/rewrites.ts";

const host = await testHost();

test("GET /openapi.json and /api/content/content/v1/openapi.json answer the same valid document without a key", async () => {
  const a = await fetch(`${host.baseUrl}/openapi.json`);
  const b = await fetch(`${host.baseUrl}/api/content/content/v1/openapi.json`);
  assert.equal(a.status, 200);
  assert.match(a.headers.get("content-type") ?? "", /application\/json/);
  const doc = await a.json();
  assert.deepEqual(await b.json(), doc);
  assert.equal(doc.openapi, "3.1.0");
  assert.equal(doc.info.version, "1");
  assert.match(doc.info.title, / API$/);
  assert.equal(doc.servers[0].url, host.baseUrl);
  await SwaggerParser.validate(structuredClone(doc));
});

test("the document describes the demo site's content types, one schema each, and an enum of their ids", async () => {
  const doc = await (await fetch(`${host.baseUrl}/openapi.json`)).json();
  assert.ok(doc.components.schemas.Article);
  assert.ok(doc.components.schemas.ModelEvent);
  const entries = doc.paths[`/api/content/spaces/{space}/environments/{environment}/entries`].get;
  const contentType = entries.parameters.find((p: any) => p.name === "content_type");
  assert.ok(contentType.schema.enum.includes("article"));
  assert.ok(contentType.schema.enum.includes("modelEvent"));
  assert.equal(doc.components.securitySchemes.key.scheme, "bearer");
});

test("the served document (the demo site, every module on) passes redocly lint with no error", async () => {
  const doc = await (await fetch(`${host.baseUrl}/openapi.json`)).json();
  const report = await redoclyLint(doc);
  assert.deepEqual(lintErrors(report), []);
  for (const group of ["Content API", "Forms API", "Scheduling API", "Store API", "Support API", "Analytics API"]) {
    assert.ok(doc["x-tagGroups"].some((g: { name: string }) => g.name === group), group);
  }
});

test("the served document says what the running site answers", async () => {
  const doc = await (await fetch(`${host.baseUrl}/openapi.json`)).json();
  const paths = Object.keys(doc.paths);
  // and every documented path reaches a function this host runs
  const functions = createFunctions(host.ctx);
  for (const path of paths) {
    const concrete = path.replace(/\{[^}]+\}/g, "x");
    const target = rewrite(concrete);
    assert.ok(target && functions[target.fn], `${path} is served`);
  }
  // the store's address as the page shows it names a version
  assert.match(doc.info.description, /\/api\/2024-10\/graphql\.json/);
  const version = doc.paths["/api/{version}/graphql.json"].parameters.find((p: any) => p.name === "version");
  assert.equal(version.example, "2024-10");
});

test("GET /api is the reference page: it loads the renderer from the site and points it at /openapi.json", async () => {
  for (const path of ["/api", "/api/", "/functions/v1/content/reference"]) {
    const res = await fetch(`${host.baseUrl}${path}`);
    assert.equal(res.status, 200, path);
    assert.match(res.headers.get("content-type") ?? "", /^text\/html/);
    const html = await res.text();
    assert.ok(html.includes(`<script src="${host.baseUrl}/api/reference/scalar.js"></script>`), path);
    assert.ok(html.includes(JSON.stringify(`${host.baseUrl}/openapi.json`)), path);
    assert.doesNotMatch(html, /https?:\/\/(?!localhost)/, "nothing is loaded from another host");
  }
});

test("GET /api/reference/scalar.js answers the renderer bundle of the pinned @scalar/api-reference, with an ETag", async () => {
  const res = await fetch(`${host.baseUrl}/api/reference/scalar.js`);
  assert.equal(res.status, 200);
  assert.match(res.headers.get("content-type") ?? "", /^application\/javascript/);
  const script = await res.text();
  assert.ok(script.length > 1_000_000, "the whole standalone bundle");
  assert.match(script, /createApiReference/);
  const again = await fetch(`${host.baseUrl}/api/reference/scalar.js`, { headers: { "if-none-match": res.headers.get("etag")! } });
  assert.equal(again.status, 304);
  await again.body?.cancel();
});
