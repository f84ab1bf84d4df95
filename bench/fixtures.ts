// Data the bench generates in its own database, in SQL (generate_series), so that tens of thousands of
// rows take seconds: articles cloned from a demo article (its links kept, so includes resolve), a form's
// responses, and a round-robin type's bookings with their holds. Each generator grows its table to a
// count and can be called again for the next step of a ladder.
import type { Sql } from "../shared/db.ts";
import { parseDocument } from "../functions/forms-api/domain/document.ts";
import { formTransaction, publishForm } from "../functions/forms-api/store/forms.ts";
import { buildCatalog } from "../functions/scheduling-api/domain/catalog.ts";
import { fnv31 } from "../functions/scheduling-api/domain/hosts.ts";
import { loadSessionEntries } from "../functions/scheduling-api/store/event-types.ts";
import { readSiteSettings } from "../shared/site.ts";

/** Rows per statement: PGlite holds a statement's work in WASM memory, so large steps go in batches. */
const BATCH = 20_000;

const say = (line: string) => console.log(`  ${line}`);

/** The demo article every generated one is cloned from (it links entries and assets). */
const ARTICLE_SOURCE = "article.hello";

/** Published entries of the space (every model): the size a scale step names. */
export async function publishedEntries(sql: Sql): Promise<number> {
  const [{ n }] = await sql<{ n: number }[]>`
    select count(*)::int as n from public.content_entries where stage = 'published'`;
  return n;
}

/**
 * Adds articles (published and preview, as an import would) until the space holds `total` published
 * entries. Each is a copy of the demo's hello article under its own id, slug, title and dates, one
 * minute apart, so lists and syncs page through distinct rows.
 */
export async function growArticles(sql: Sql, total: number): Promise<number> {
  const [{ made }] = await sql<{ made: number }[]>`
    select count(*)::int as made from public.content_entries where stage = 'published' and id like 'article.scale-%'`;
  let have = await publishedEntries(sql);
  const before = have;
  let next = made + 1;
  const started = performance.now();
  while (have < total) {
    const count = Math.min(BATCH, total - have);
    await sql`
      insert into public.content_entries (stage, id, model_id, path, access, fields, links, asset_links, search_text,
        created_at, updated_at)
      select s.stage, 'article.scale-' || i, s.model_id, 'records/articles/scale-' || lpad(i::text, 7, '0') || '.md',
             s.access,
             s.fields || jsonb_build_object(
               'slug', jsonb_build_object('en-US', 'scale-' || i),
               'title', jsonb_build_object('en-US', 'Scale article ' || i),
               'date', jsonb_build_object('en-US', to_char(date '2020-01-01' + (i % 3650), 'YYYY-MM-DD'))),
             s.links, s.asset_links, 'Scale article ' || i || ' ' || s.search_text,
             timestamptz '2020-01-01' + make_interval(mins => i), timestamptz '2020-01-01' + make_interval(mins => i)
      from generate_series(${next}::int, ${next + count - 1}::int) as i,
           public.content_entries s
      where s.id = ${ARTICLE_SOURCE}`;
    next += count;
    have += count;
  }
  if (have > before) {
    await settle(sql, ["public.content_entries"]);
    say(`${have} published entries (articles generated in ${Math.round(performance.now() - started)} ms)`);
  }
  return have;
}

/**
 * A table after a bulk load as a running site has it: the GIN pending lists merged and the statistics
 * fresh (autovacuum's work), and the load's dirty pages written out. Without the checkpoint, the reads
 * measured next share the disk with the writeback of a million rows (a 1M forms page measured twice its
 * 10k time in the bench; side by side on one settled database the two cost the same).
 */
export async function settle(sql: Sql, tables: string[]): Promise<void> {
  for (const table of tables) await sql.unsafe(`vacuum analyze ${table}`);
  await sql.unsafe("checkpoint");
}

/** A form of one slide (name, colour, stars, note), published the way the forms API publishes. */
export async function publishBenchForm(sql: Sql, slug: string, title: string): Promise<void> {
  const document = `---
title: ${title}
slug: ${slug}
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
  await formTransaction(sql, (tx) =>
    publishForm(tx, {
      doc: parseDocument(document),
      locale: "en-US",
      id: `page.forms.${slug}`,
      path: `records/pages/forms/${slug}.md`,
      now: new Date(),
    }));
}

/** Responses of the form so far. */
export async function responsesOf(sql: Sql, slug: string): Promise<number> {
  const [{ n }] = await sql<{ n: number }[]>`select count(*)::int as n from public.form_responses where form = ${slug}`;
  return n;
}

/**
 * Grows the form's responses to `total`, seven seconds apart. Every response answers name, colour and
 * stars; every third one leaves a note, and one note in ten of those mentions the harbor; a tenth are
 * still open (landed, not submitted).
 */
export async function growResponses(sql: Sql, slug: string, total: number): Promise<number> {
  let have = await responsesOf(sql, slug);
  const before = have;
  const started = performance.now();
  while (have < total) {
    const from = have + 1, to = Math.min(total, have + BATCH);
    await sql`
      insert into public.form_responses (token, form, landed_at, submitted_at, at, metadata, hidden, answers, seen, last_slide, platform, network_id, search_text)
      select ${slug.slice(0, 8)} || lpad(i::text, 24, '0'), ${slug},
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
      from generate_series(${from}::int, ${to}::int) as i,
           lateral (select (array['red', 'blue', 'green'])[i % 3 + 1] as ref) as c`;
    have = to;
  }
  if (have > before) {
    await settle(sql, ["public.form_responses"]);
    say(`${have} responses of ${slug} (generated in ${Math.round(performance.now() - started)} ms)`);
  }
  return have;
}

/** The bookings the generator made so far. */
export async function generatedBookings(sql: Sql): Promise<number> {
  const [{ n }] = await sql<{ n: number }[]>`
    select count(*)::int as n from public.scheduling_bookings where uid like 'scale-%'`;
  return n;
}

/**
 * Grows the team-call bookings (3-host round robin) made by this generator to `total`: one every 30
 * minutes from 2033 on, each with its host's hold (so the exclusion constraint checks them as it would a
 * booking made through the API), a tenth of them cancelled.
 */
export async function growBookings(sql: Sql, total: number): Promise<number> {
  const catalog = buildCatalog((await readSiteSettings(sql))!, await loadSessionEntries(sql));
  const type = catalog.types.find((t) => t.slug === "team-call");
  if (!type) throw new Error("the demo site has no team-call type");
  const hosts = type.hosts.map((h) => h.host.email);
  let have = await generatedBookings(sql);
  const before = have;
  const started = performance.now();
  while (have < total) {
    const from = have + 1, to = Math.min(total, have + BATCH);
    await sql`
      with made as (
        insert into public.scheduling_bookings (uid, event_type_slug, event_type_id, title, start_at, end_at, status,
          host_emails, attendee_name, attendee_email, attendee_time_zone, ics_uid, created_at, updated_at)
        select 'scale-' || i, ${type.slug}, ${fnv31(type.slug)}, 'Team call ' || i,
               timestamptz '2033-01-01' + make_interval(mins => i * 30),
               timestamptz '2033-01-01' + make_interval(mins => i * 30 + 30),
               case when i % 10 = 0 then 'cancelled' else 'accepted' end,
               array[(${hosts}::text[])[i % ${hosts.length} + 1]],
               'Attendee ' || i, 'attendee' || i || '@example.com', 'Europe/Berlin', 'scale-' || i,
               timestamptz '2030-01-01' + make_interval(secs => i), timestamptz '2030-01-01' + make_interval(secs => i)
        from generate_series(${from}::int, ${to}::int) as i
        returning id, host_emails[1] as host, status, start_at, end_at
      )
      insert into public.scheduling_holds (booking_id, host_email, during)
      select id, host, tstzrange(start_at, end_at) from made where status = 'accepted'`;
    have = to;
  }
  if (have > before) {
    await settle(sql, ["public.scheduling_bookings", "public.scheduling_holds"]);
    say(`${have} generated bookings (in ${Math.round(performance.now() - started)} ms)`);
  }
  return have;
}
