// Forms bench: the responses list over 100 000 responses of one form (page_size 1000, with query and
// answered_fields) through HTTP, against the floor of the same two statements (page and count) run
// directly. The responses are generated in the bench's own database (bench/fixtures.ts).
import type { Sql } from "../shared/db.ts";
import { createKey } from "../shared/keys.ts";
import { parseResponseQuery } from "../functions/forms-api/domain/responses.ts";
import { listResponses } from "../functions/forms-api/store/responses.ts";
import { growResponses, publishBenchForm } from "./fixtures.ts";

type Measure = (label: string, run: () => Promise<unknown>) => Promise<number>;

export const RESPONSES = 100_000;
const SLUG = "bench-survey";
const QUERY = "page_size=1000&query=harbor&answered_fields=note,stars";

export async function benchForms(
  sql: Sql,
  baseUrl: string,
  measure: Measure,
): Promise<Record<string, unknown>> {
  await publishBenchForm(sql, SLUG, "Bench survey");
  console.log(`bench: generating ${RESPONSES} responses`);
  await growResponses(sql, SLUG, RESPONSES);

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
