// Forms bench: the responses list over 100 000 responses of one form (page_size 1000, with query and
// answered_fields) through HTTP, against the floor of the same two statements (page and count) run
// directly. The responses are generated in the bench's own database.
import type { Sql } from "../shared/db.ts";
import { createKey } from "../shared/keys.ts";
import { parseDocument } from "../functions/forms-api/domain/document.ts";
import { parseResponseQuery } from "../functions/forms-api/domain/responses.ts";
import { formTransaction, publishForm } from "../functions/forms-api/store/forms.ts";
import { listResponses } from "../functions/forms-api/store/responses.ts";

type Measure = (label: string, run: () => Promise<unknown>) => Promise<number>;

export const RESPONSES = 100_000;
const SLUG = "bench-survey";
const QUERY = "page_size=1000&query=harbor&answered_fields=note,stars";

const DOCUMENT = `---
title: Bench survey
slug: ${SLUG}
kind: form-slides
---

## One
name* text: Name?
color choice: Colour?
  - Red
  - Blue
  - Green
stars rating: Stars?
note long text: Notes?
`;

export async function benchForms(
  sql: Sql,
  baseUrl: string,
  measure: Measure,
): Promise<Record<string, unknown>> {
  await formTransaction(sql, (tx) =>
    publishForm(tx, {
      doc: parseDocument(DOCUMENT),
      locale: "en-US",
      id: `page.forms.${SLUG}`,
      path: `records/pages/forms/${SLUG}.md`,
      now: new Date(),
    }));

  console.log(`bench: generating ${RESPONSES} responses`);
  const started = performance.now();
  // every response answers name, colour and stars; every third one leaves a note, and one note in ten
  // of those mentions the harbor; a tenth are still open
  await sql`
    insert into public.form_responses (token, form, landed_at, submitted_at, at, metadata, hidden, answers, seen, last_slide, platform, network_id, search_text)
    select 'bench' || lpad(i::text, 27, '0'), ${SLUG},
           timestamptz '2030-01-01' + make_interval(secs => i * 7),
           case when i % 10 = 0 then null else timestamptz '2030-01-01' + make_interval(secs => i * 7 + 90) end,
           case when i % 10 = 0 then timestamptz '2030-01-01' + make_interval(secs => i * 7)
                else timestamptz '2030-01-01' + make_interval(secs => i * 7 + 90) end,
           jsonb_build_object('user_agent', 'bench', 'platform', 'desktop', 'referer', '', 'network_id', md5(i::text), 'browser', 'default'),
           jsonb_build_object('batch', 'b' || (i % 50)),
           jsonb_build_object(
             'name', jsonb_build_object('type', 'text', 'field_type', 'short_text', 'value', 'Person ' || i),
             'color', jsonb_build_object('type', 'choice', 'field_type', 'multiple_choice', 'value',
               jsonb_build_object('id', c.ref, 'ref', c.ref, 'label', initcap(c.ref))),
             'stars', jsonb_build_object('type', 'number', 'field_type', 'rating', 'value', i % 5 + 1))
           || case when i % 3 = 0 then jsonb_build_object('note', jsonb_build_object('type', 'text', 'field_type', 'long_text',
                'value', case when i % 30 = 0 then 'the harbor lights were lovely ' || i else 'fine evening number ' || i end))
              else '{}'::jsonb end,
           array['group-1'], 'group-1', 'desktop', md5(i::text),
           concat_ws(' ', 'Person ' || i, initcap(c.ref), i % 5 + 1,
             case when i % 3 = 0 then case when i % 30 = 0 then 'the harbor lights were lovely ' || i else 'fine evening number ' || i end end,
             'b' || (i % 50))
    from generate_series(1, ${RESPONSES}) as i,
         lateral (select (array['red', 'blue', 'green'])[i % 3 + 1] as ref) as c`;
  // steady state: the bulk load's GIN pending lists merged, statistics fresh (autovacuum's work in a
  // running site)
  await sql.unsafe("vacuum analyze public.form_responses");
  console.log(`  generated in ${Math.round(performance.now() - started)} ms`);

  const keys = await Promise.all(
    Array.from({ length: 10 }, (_, i) => createKey(sql, { name: `bench forms ${i}`, kind: "forms" })),
  );
  let turn = 0;
  const url = `${baseUrl}/api/forms/${SLUG}/responses?${QUERY}`;
  const check = await (await fetch(url, { headers: { authorization: `Bearer ${keys[0].key}` } })).json();
  if (check.items?.length !== 1000) {
    throw new Error(`the bench query should fill a page: ${JSON.stringify(check).slice(0, 300)}`);
  }

  console.log(
    `bench: GET /api/forms/${SLUG}/responses?${QUERY} over ${RESPONSES} responses (${check.total_items} match)`,
  );
  const api = await measure("api", async () => {
    const res = await fetch(url, { headers: { authorization: `Bearer ${keys[turn++ % keys.length].key}` } });
    if (!res.ok) throw new Error(`responses: HTTP ${res.status} ${await res.text()}`);
    return await res.arrayBuffer();
  });
  // the floor: the same page and count statements, run directly
  const { query } = parseResponseQuery(new URLSearchParams(QUERY));
  const floor = await measure("sql floor", () => listResponses(sql, SLUG, query));
  return {
    name: `forms responses list (${RESPONSES} responses, page_size=1000, query, answered_fields)`,
    matching: check.total_items,
    api_ms: api,
    floor_ms: floor,
    ratio: api / floor,
  };
}
