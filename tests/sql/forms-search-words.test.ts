// Migration 20261124001400 stores the search text of responses written before it as words: an e-mail
// address, a web address or a file name typed into an answer is found by `query` whole or by its parts.
// The migration's text is run again on rows as the old code wrote them (it is idempotent).
import assert from "node:assert/strict";
import { test } from "../helpers/test.ts";
import type { Tx } from "../../shared/db.ts";
import { searchQuery } from "../../functions/forms-api/domain/responses.ts";
import { rolledBack } from "./support.ts";

const MIGRATION = await Deno.readTextFile(
  new URL("../../migrations/20261124001400_forms_search_words.sql", import.meta.url),
);

async function oldResponse(tx: Tx, searchText: string): Promise<string> {
  const token = `words${crypto.randomUUID().replace(/-/g, "")}`;
  await tx`insert into public.form_responses (token, form, landed_at, at, search_text, platform)
           values (${token}, 'search-words', now(), now(), ${searchText}, 'desktop')`;
  return token;
}

async function matches(tx: Tx, query: string): Promise<string[]> {
  const rows = await tx<{ token: string }[]>`select token from public.form_responses
    where form = 'search-words' and search @@ to_tsquery('simple', ${searchQuery(query)!}) order by token`;
  return rows.map((r) => r.token);
}

test("the search-words migration makes addresses and file names of older responses findable by their parts", () =>
  rolledBack(async (tx) => {
    const typed = "Ann ann.lee@example.com https://ada.example/about report.pdf 1.2.3 über-all 日本語";
    const old = await oldResponse(tx, typed);
    const plain = await oldResponse(tx, "nothing special");
    assert.deepEqual(await matches(tx, "example.com"), [], "as the old rows were: not found");

    await tx.unsafe(MIGRATION);
    for (
      const query of [
        "ann.lee@example.com",
        "example.com",
        "lee",
        "ada.example",
        "about",
        "report.pdf",
        "1.2.3",
      ]
    ) {
      assert.deepEqual(await matches(tx, query), [old], query);
    }
    assert.deepEqual(await matches(tx, "über"), [old], "letters beyond ASCII stay in their words");
    assert.deepEqual(await matches(tx, "日本語"), [old]);
    assert.deepEqual(await matches(tx, "special"), [plain]);
    const [{ search_text }] = await tx`select search_text from public.form_responses where token = ${old}`;
    assert.equal(
      search_text,
      "Ann ann lee example com https ada example about report pdf 1 2 3 über all 日本語",
    );

    await tx.unsafe(MIGRATION);
    const [again] = await tx`select search_text from public.form_responses where token = ${old}`;
    assert.equal(again.search_text, search_text, "running it again changes nothing");
  }));
