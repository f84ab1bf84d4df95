// Cloud-mode form writes (serial: the site's mode is site-wide): POST, PUT, PATCH and DELETE over HTTP
// and through the real @typeform/api-client (create, update with override and with a patch, copy twice,
// delete), the refusals, and what the writes store: a page record of kind form-slides, published at once.
import assert from "node:assert/strict";
import { createClient } from "@typeform/api-client";
import { test } from "../../helpers/test.ts";
import { testHost } from "../../helpers/host.ts";
import { testSql } from "../../helpers/db.ts";
import { formsApi, makeForm, respond, SURVEY } from "./support.ts";

const host = await testHost();
const key = await host.key("forms");
const api = formsApi(host, key);
const client = createClient({ token: key, apiBaseUrl: `${host.baseUrl}/api` });

async function inCloudMode(body: () => Promise<void>) {
  const sql = testSql();
  await sql`update public.site_settings set mode = 'cloud', updated_at = now()`;
  try {
    await body();
  } finally {
    await sql`update public.site_settings set mode = 'git', updated_at = now()`;
  }
}

const DEFINITION = {
  title: "Cloud Survey",
  type: "quiz",
  settings: { progress_bar: "proportion", show_question_number: false },
  hidden: ["source"],
  welcome_screens: [{ title: "Hello", properties: { button_text: "Go", description: "Two questions." } }],
  fields: [
    {
      ref: "city",
      title: "Capital of France?",
      type: "multiple_choice",
      properties: { choices: [{ label: "Paris" }, { label: "Lyon" }] },
      validations: { required: true },
    },
    {
      type: "group",
      title: "More",
      properties: {
        fields: [{ ref: "why", title: "Why?", type: "long_text" }, {
          ref: "n",
          title: "How many?",
          type: "number",
          validations: { min_value: 1 },
        }],
      },
    },
  ],
  thankyou_screens: [{ ref: "done", title: "Done", properties: { show_button: false } }, {
    ref: "great",
    title: "Great",
  }],
  logic: [
    {
      type: "field",
      ref: "city",
      actions: [
        {
          action: "add",
          details: { target: { type: "variable", value: "score" }, value: { type: "constant", value: 1 } },
          condition: {
            op: "is",
            vars: [{ type: "field", value: "city" }, { type: "constant", value: "Paris" }],
          },
        },
        {
          action: "jump",
          details: { to: { type: "thankyou", value: "great" } },
          condition: {
            op: "or",
            vars: [
              { op: "equal", vars: [{ type: "field", value: "city" }, { type: "constant", value: "Paris" }] },
              {
                op: "contains",
                vars: [{ type: "field", value: "city" }, { type: "constant", value: "Par" }],
              },
            ],
          },
        },
      ],
    },
    {
      type: "field",
      ref: "n",
      actions: [{
        action: "jump",
        details: { to: { type: "thankyou", value: "done" } },
        condition: { op: "always", vars: [] },
      }],
      expression: 'n >= 2 and why contains "because"',
    },
  ],
};

test("cloud mode over HTTP: POST creates and publishes a form page; the definition reads back; the copy() id rule", async () => {
  await inCloudMode(async () => {
    const created = await api("/forms", { method: "POST", body: JSON.stringify(DEFINITION) });
    assert.equal(created.status, 201, JSON.stringify(created.body));
    const id = created.body.id;
    assert.equal(id, "cloud-survey");
    assert.equal(created.body.fields.length, 2);
    assert.equal(created.body.fields[0].properties.fields[0].ref, "city");
    assert.equal(
      created.body.logic.find((l: { expression?: string }) => l.expression)?.expression,
      'n >= 2 and why contains "because"',
    );
    assert.deepEqual((await api(`/forms/${id}`)).body, created.body, "GET answers what POST answered");

    const [row] =
      await testSql()`select id, path, fields, revision from public.content_entries where stage = 'published' and id = ${
        "page.forms." + id
      }`;
    assert.equal(row.path, `records/pages/forms/${id}.md`);
    assert.equal(row.fields.kind["en-US"], "form-slides");
    assert.match(row.fields.bodyMarkdown["en-US"], /^city\* choice: Capital of France\?$/m);
    assert.equal(row.fields.body["en-US"].nodeType, "document");
    const [preview] =
      await testSql()`select revision from public.content_entries where stage = 'preview' and id = ${row.id}`;
    assert.equal(preview.revision, row.revision, "published at once");

    // the same title again: the next free derived id; an explicit id that exists: VALIDATION_ERROR
    const second = await api("/forms", { method: "POST", body: JSON.stringify(DEFINITION) });
    assert.equal(second.status, 201);
    assert.equal(second.body.id, "cloud-survey-2");
    const taken = await api("/forms", { method: "POST", body: JSON.stringify({ ...DEFINITION, id }) });
    assert.equal(taken.status, 400);
    assert.equal(taken.body.code, "VALIDATION_ERROR");
    assert.match(taken.body.description, /use PUT/);
    const unnamed = await api("/forms", { method: "POST", body: JSON.stringify({ fields: [] }) });
    assert.equal(unnamed.body.code, "VALIDATION_ERROR");
    assert.match(unnamed.body.description, /Nothing names the form/);
    const badId = await api("/forms", {
      method: "POST",
      body: JSON.stringify({ id: "Not An Id", title: "x" }),
    });
    assert.equal(badId.body.code, "VALIDATION_ERROR");

    for (const id2 of [id, second.body.id]) {
      assert.equal((await api(`/forms/${id2}`, { method: "DELETE" })).status, 204);
    }
  });
});

test("cloud mode refusals: unsupported types and unsayable jumps are BAD_REQUEST; shape problems VALIDATION_ERROR", async () => {
  await inCloudMode(async () => {
    for (
      const type of ["payment", "legal", "matrix", "ranking", "yes_no", "contact_info", "address", "nps"]
    ) {
      const res = await api("/forms/refused", {
        method: "PUT",
        body: JSON.stringify({ title: "x", fields: [{ ref: "q", title: "q", type }] }),
      });
      assert.equal(res.status, 400, type);
      assert.equal(res.body.code, "BAD_REQUEST", type);
    }
    const jump = await api("/forms/refused", {
      method: "PUT",
      body: JSON.stringify({
        title: "x",
        fields: [{ ref: "a", title: "a", type: "number" }],
        logic: [{
          type: "field",
          ref: "a",
          actions: [{
            action: "jump",
            details: { to: { type: "thankyou", value: "default_tys" } },
            condition: { op: "begins_with", vars: [] },
          }],
        }],
      }),
    });
    assert.equal(jump.body.code, "BAD_REQUEST");
    assert.match(jump.body.description, /a jump the rows cannot express/);
    const shape = await api("/forms/refused", {
      method: "PUT",
      body: JSON.stringify({
        title: "x",
        fields: [{ ref: "a", title: "a", type: "rating", properties: { steps: 99 } }],
      }),
    });
    assert.equal(shape.body.code, "VALIDATION_ERROR");
    assert.equal(shape.body.details[0].field, "fields.0.properties.steps");
    assert.equal(
      (await api("/forms/refused", { method: "PUT", body: "{nope" })).body.code,
      "VALIDATION_ERROR",
    );
    assert.equal(
      (await api("/forms/Bad_Id", { method: "PUT", body: JSON.stringify({ title: "x" }) })).body.code,
      "VALIDATION_ERROR",
    );
    // an entry at the id a new form would get that is not a form: the id is taken
    await testSql()`insert into public.content_entries (stage, id, model_id, path, fields)
      values ('preview', 'page.forms.plain-page', 'page', 'records/pages/forms/plain-page.md', '{"title": {"en-US": "Plain"}}')`;
    try {
      const notAForm = await api("/forms/plain-page", {
        method: "PUT",
        body: JSON.stringify({ title: "x" }),
      });
      assert.equal(notAForm.body.code, "VALIDATION_ERROR");
      assert.match(notAForm.body.description, /not a form/);
    } finally {
      await testSql()`delete from public.content_entries where id = 'page.forms.plain-page'`;
    }
    assert.equal((await api("/forms/refused")).body.code, "NOT_FOUND", "nothing was written");
  });
});

test("cloud mode refusals on POST and PATCH too: an unsupported type is BAD_REQUEST, whether sent or patched in", async () => {
  await inCloudMode(async () => {
    const posted = await api("/forms", {
      method: "POST",
      body: JSON.stringify({ title: "Pay up", fields: [{ ref: "q", title: "q", type: "payment" }] }),
    });
    assert.deepEqual([posted.status, posted.body.code, posted.body.details[0].field], [
      400,
      "BAD_REQUEST",
      "fields.0.type",
    ]);
    assert.equal((await api("/forms/pay-up")).body.code, "NOT_FOUND", "nothing was written");
    const made = await api("/forms", { method: "POST", body: JSON.stringify({ title: "Patched refusal" }) });
    assert.equal(made.status, 201);
    try {
      const patched = await api(`/forms/${made.body.id}`, {
        method: "PATCH",
        body: JSON.stringify([{
          op: "add",
          path: "/fields/-",
          value: { ref: "n", title: "NPS?", type: "nps" },
        }]),
      });
      assert.deepEqual([patched.status, patched.body.code], [400, "BAD_REQUEST"]);
      assert.equal((await api(`/forms/${made.body.id}`)).body.fields.length, 0, "the form is as it was");
    } finally {
      await api(`/forms/${made.body.id}`, { method: "DELETE" });
    }
  });
});

test("cloud mode: an id or an expression that is not text is VALIDATION_ERROR at its path, never ignored", async () => {
  await inCloudMode(async () => {
    const id = await api("/forms", { method: "POST", body: JSON.stringify({ id: 5, title: "Numbered" }) });
    assert.deepEqual([id.status, id.body.code, id.body.details[0].field], [400, "VALIDATION_ERROR", "id"]);
    assert.equal((await api("/forms/numbered")).body.code, "NOT_FOUND", "no form was made from the title");
    const expression = await api("/forms", {
      method: "POST",
      body: JSON.stringify({
        title: "Always jumping",
        fields: [{ ref: "a", title: "a", type: "short_text" }, { ref: "b", title: "b", type: "short_text" }],
        logic: [{
          type: "field",
          ref: "a",
          actions: [{
            action: "jump",
            details: { to: { type: "field", value: "b" } },
            condition: { op: "always", vars: [] },
          }],
          expression: 5,
        }],
      }),
    });
    assert.deepEqual([expression.status, expression.body.code, expression.body.details[0].field], [
      400,
      "VALIDATION_ERROR",
      "logic.0.expression",
    ]);
    assert.equal((await api("/forms/always-jumping")).body.code, "NOT_FOUND");
  });
});

test("cloud mode: free-form settings nested past 32 levels (or 2000, or past the body's 64) are VALIDATION_ERROR on POST, PUT and PATCH", async () => {
  const deep = (depth: number) => "[".repeat(depth) + "]".repeat(depth);
  const deepObject = (depth: number) => '{"a":'.repeat(depth) + "1" + "}".repeat(depth);
  await inCloudMode(async () => {
    for (const value of [deep(33), deep(2000), deepObject(100_000)]) {
      const posted = await api("/forms", {
        method: "POST",
        body: `{"title": "Deep settings", "settings": {"custom_thing": ${value}}}`,
      });
      assert.deepEqual([posted.status, posted.body.code, posted.body.details[0].field], [
        400,
        "VALIDATION_ERROR",
        "settings.custom_thing",
      ]);
      const put = await api("/forms/deep-settings", {
        method: "PUT",
        body: `{"title": "Deep settings", "settings": {"custom_thing": ${value}}}`,
      });
      assert.deepEqual([put.status, put.body.details[0].field], [400, "settings.custom_thing"]);
    }
    assert.equal((await api("/forms/deep-settings")).body.code, "NOT_FOUND", "nothing was written");
    const ok = await api("/forms", {
      method: "POST",
      body: `{"title": "Deep settings", "settings": {"custom_thing": ${deep(32)}}}`,
    });
    assert.equal(ok.status, 201, JSON.stringify(ok.body));
    try {
      const patch = (ops: string) => api("/forms/deep-settings", { method: "PATCH", body: ops });
      const added = await patch(`[{"op": "add", "path": "/settings/custom_thing", "value": ${deep(2000)}}]`);
      assert.deepEqual([added.status, added.body.code], [400, "VALIDATION_ERROR"]);
      // into the innermost of the 32 lists: 37 levels
      const innermost = `/settings/custom_thing${"/0".repeat(31)}/-`;
      const nested = await patch(`[{"op": "add", "path": "${innermost}", "value": ${deep(5)}}]`);
      assert.deepEqual([nested.status, nested.body.details[0].field], [400, "settings.custom_thing"]);
      // copies that double the definition each time stop at the size limit, not at the memory's
      const doubling = [{ op: "add", path: "/settings/blob", value: ["x".repeat(10_000)] }];
      for (let i = 0; i < 40; i++) {
        doubling.push({ op: "copy", from: "/settings/blob", path: "/settings/blob/-" } as never);
      }
      const grown = await patch(JSON.stringify(doubling));
      assert.deepEqual([grown.status, grown.body.code], [400, "VALIDATION_ERROR"]);
      assert.match(grown.body.description, /a definition is at most 2000000 characters of JSON/);
      assert.equal((await api("/forms/deep-settings")).body.settings.blob, undefined, "nothing was written");
    } finally {
      await api("/forms/deep-settings", { method: "DELETE" });
    }
  });
});

test("cloud mode PUT (201 then 200) and PATCH (RFC 6902); a failed test or a missing path is VALIDATION_ERROR; the document's own webhook stays", async () => {
  await inCloudMode(async () => {
    const made = await api("/forms/put-form", {
      method: "PUT",
      body: JSON.stringify({ title: "Put form", fields: [{ ref: "a", title: "A?", type: "short_text" }] }),
    });
    assert.equal(made.status, 201);
    const replaced = await api("/forms/put-form", {
      method: "PUT",
      body: JSON.stringify({ ...made.body, title: "Put form, again" }),
    });
    assert.equal(replaced.status, 200);
    assert.equal(replaced.body.title, "Put form, again");
    assert.equal(replaced.body.created_at, made.body.created_at);

    const patched = await api("/forms/put-form", {
      method: "PATCH",
      body: JSON.stringify([
        { op: "test", path: "/title", value: "Put form, again" },
        { op: "replace", path: "/title", value: "Patched" },
        {
          op: "add",
          path: "/fields/0/properties/fields/-",
          value: { ref: "b", title: "B?", type: "email", validations: { required: true } },
        },
        { op: "replace", path: "/settings/is_public", value: false },
        { op: "copy", from: "/title", path: "/settings/meta/description" },
        { op: "move", from: "/settings/meta/description", path: "/welcome_screens/0" },
        { op: "remove", path: "/welcome_screens/0" },
      ]),
    });
    assert.equal(patched.status, 200, JSON.stringify(patched.body));
    assert.equal(patched.body.title, "Patched");
    assert.equal(patched.body.settings.is_public, false);
    assert.deepEqual(patched.body.fields[0].properties.fields.map((f: { ref: string }) => f.ref), ["a", "b"]);
    const failedTest = await api("/forms/put-form", {
      method: "PATCH",
      body: JSON.stringify([{ op: "test", path: "/title", value: "Other" }, {
        op: "replace",
        path: "/title",
        value: "x",
      }]),
    });
    assert.equal(failedTest.status, 400);
    assert.equal(failedTest.body.code, "VALIDATION_ERROR");
    assert.match(failedTest.body.description, /test operation failed/);
    const missingPath = await api("/forms/put-form", {
      method: "PATCH",
      body: JSON.stringify([{ op: "replace", path: "/nothing/here", value: 1 }]),
    });
    assert.equal(missingPath.body.code, "VALIDATION_ERROR");
    assert.equal(
      (await api("/forms/put-form", { method: "PATCH", body: JSON.stringify({ op: "replace" }) })).body.code,
      "VALIDATION_ERROR",
    );
    assert.equal((await api("/forms/put-form")).body.title, "Patched", "refused patches change nothing");
    assert.equal((await api("/forms/no-form", { method: "PATCH", body: "[]" })).body.code, "NOT_FOUND");

    // a form whose document names its own webhook keeps it through PUT and PATCH
    const slug = await makeForm(host, "ownhook", "name text: Name?\n", {
      webhook: "https://hooks.example/own",
    });
    const res = await api(`/forms/${slug}`, {
      method: "PUT",
      body: JSON.stringify({
        title: "Renamed",
        fields: [{ ref: "name", title: "Name?", type: "short_text" }],
      }),
    });
    assert.equal(res.status, 200);
    const [rec] =
      await testSql()`select fields from public.content_entries where stage = 'published' and id = ${
        "page.tests." + slug
      }`;
    assert.equal(rec.fields.form["en-US"].webhook, "https://hooks.example/own");
    assert.equal(rec.fields.title["en-US"], "Renamed");
  });
});

test("cloud mode DELETE removes the document and publishes the removal; responses stay", async () => {
  await inCloudMode(async () => {
    const slug = await makeForm(host, "doomed", SURVEY);
    const { token } = await respond(host, slug, { name: "Stays" });
    assert.equal((await api(`/forms/${slug}`, { method: "DELETE" })).status, 204);
    assert.equal((await api(`/forms/${slug}`)).body.code, "NOT_FOUND");
    assert.equal((await api(`/forms/${slug}`, { method: "DELETE" })).body.code, "NOT_FOUND");
    const rows = await testSql()`select stage from public.content_entries where id = ${"page.tests." + slug}`;
    assert.equal(rows.length, 0);
    const [tomb] =
      await testSql()`select kind from public.content_tombstones where stage = 'published' and id = ${
        "page.tests." + slug
      }`;
    assert.equal(tomb.kind, "DeletedEntry", "sync reports the removal");
    const [kept] = await testSql()`select token from public.form_responses where token = ${token}`;
    assert.ok(kept, "responses remain after the form is deleted");
  });
});

test("the real client in cloud mode: create, update (override and patch), copy twice, delete", async () => {
  await inCloudMode(async () => {
    const created = await client.forms.create({
      data: { title: "Client Made", fields: [{ ref: "q", title: "Q?", type: "short_text" }] as never },
    });
    assert.equal(created.id, "client-made");
    const overridden = await client.forms.update({
      uid: created.id!,
      override: true,
      data: { ...created, title: "Client Made v2" },
    });
    assert.equal(overridden.title, "Client Made v2");
    await client.forms.update({
      uid: created.id!,
      data: [{ op: "replace", path: "/title", value: "Client Made v3" }],
    });
    assert.equal((await client.forms.get({ uid: created.id! })).title, "Client Made v3");

    // copy() strips every id, replaces the workspace and POSTs the same title: ids come out -2, -3
    const copy1 = await client.forms.copy({
      uid: created.id!,
      workspaceHref: `${host.baseUrl}/api/workspaces/default`,
    });
    const copy2 = await client.forms.copy({
      uid: created.id!,
      workspaceHref: `${host.baseUrl}/api/workspaces/default`,
    });
    assert.equal(copy1.title, "Client Made v3");
    assert.equal(copy1.id, "client-made-v3", "the copy is named by its title");
    assert.equal(copy2.id, "client-made-v3-2", "a taken derived id gets the next free suffix");
    assert.deepEqual(
      copy1.fields,
      (await client.forms.get({ uid: created.id! })).fields,
      "the copy has the same fields",
    );

    for (const id of [created.id!, copy1.id!, copy2.id!]) await client.forms.delete({ uid: id });
    const gone = await client.forms.get({ uid: created.id! }).catch((e) => e);
    assert.equal(gone.code, "NOT_FOUND");
  });
});

test("the Forms API and the form page need both the forms and the api modules", async () => {
  const { withSettings } = await import("../../helpers/site-settings.ts");
  for (const module of ["forms", "api"]) {
    await withSettings((_config, modules) => (modules[module] = false), async () => {
      const res = await api("/forms/feedback");
      assert.equal(res.status, 404, module);
      assert.equal(res.body.code, "NOT_FOUND");
      assert.match(res.body.description, /switched off/);
      const page = await fetch(`${host.baseUrl}/to/feedback/responses`, { method: "POST", body: "{}" });
      assert.equal(page.status, 404, `the form page's routes with ${module} off`);
      await page.body?.cancel();
    });
  }
  assert.equal((await api("/forms/feedback")).status, 200);
});

test("forms.list({ page: 'auto' }) gathers more than one page of 200 forms (serial: the site's form count)", async () => {
  const prefix = `many${crypto.randomUUID().slice(0, 8)}`;
  const made = new Set<string>();
  try {
    for (let i = 0; i < 205; i++) made.add(await makeForm(host, prefix, "q text: Q?\n"));
    const all = await client.forms.list({ page: "auto", search: prefix });
    assert.equal(all.total_items, 205);
    assert.equal(all.items!.length, 205, "the client asked for page 2 after a full page of 200");
    assert.deepEqual(new Set(all.items!.map((f) => f.id)), made, "every form once");
  } finally {
    await testSql()`delete from public.content_entries where id like ${`page.tests.${prefix}-%`}`;
  }
});
