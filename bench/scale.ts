// Scale steps: does a page cost more when the table behind it is larger? Each read is timed (sequential
// median over HTTP, on a host with raised rate limits) at every step of a ladder the generators grow the
// tables through: the delivery list, one entry, GraphQL and sync (initial and delta) on spaces of 1k, 10k
// and 100k published entries; the forms responses list at 10k, 100k and 1M responses; the bookings list
// at 1k, 10k and 100k bookings. Each path reports its cost per step and the largest step's cost over the
// smallest's (goal within 1.5×). The forms, each step a form of its own, are timed side by side once all
// are grown, a request to each step in turn. Every content step also walks a whole initial sync, page after page, measuring the host's
// JS heap as it goes: a sync that streams holds the same however large the space.
//
// BENCH_SCALE_MAX (default 100000) leaves out the steps above it: 1000000 adds the million responses,
// which take minutes to generate on PGlite. A quick run (BENCH_ITERATIONS below 5) takes the smallest
// step of each ladder only. BENCH_SCALE_LADDERS=forms,bookings runs only those ladders (content, forms,
// bookings; all by default), so one can be measured again without generating the others.
import type { Sql } from "../shared/db.ts";
import { createKey } from "../shared/keys.ts";
import { growArticles, growBookings, growResponses, publishBenchForm, publishedEntries } from "./fixtures.ts";
import { type BenchHost, startBenchHost } from "./host.ts";
import { ARTICLES } from "./load.ts";
import { benchSize, QUICK } from "./size.ts";
import { median } from "./stats.ts";

type Measure = (label: string, run: () => Promise<unknown>, iterations?: number) => Promise<number>;

const MAX = benchSize("BENCH_SCALE_MAX", 100_000, 100_000);
const ITERATIONS = benchSize("BENCH_SCALE_ITERATIONS", 20, 1);
const LADDERS = Deno.env.get("BENCH_SCALE_LADDERS")?.split(",").map((name) => name.trim()).filter(Boolean);
const wantsLadder = (name: "content" | "forms" | "bookings") => !LADDERS?.length || LADDERS.includes(name);
const ladder = (steps: number[]) => (QUICK ? steps.slice(0, 1) : steps.filter((n) => n <= MAX));
const CONTENT_STEPS = ladder([1_000, 10_000, 100_000]);
const RESPONSE_STEPS = ladder([10_000, 100_000, 1_000_000]);
const BOOKING_STEPS = ladder([1_000, 10_000, 100_000]);
/** The goal: a page at the largest step costs at most this many times what it costs at the smallest. */
const GOAL_RATIO = 1.5;
/** Requests to each step of the ladders timed side by side (forms), in ITERATIONS: three times a sequential median's. */
const SIDE_BY_SIDE_ROUNDS = 3;
/** Entries a delta sync carries: changed after the initial sync. */
const DELTA = 10;

const mb = (bytes: number) => Math.round((bytes / 1024 / 1024) * 10) / 10;

interface Ladder {
  name: string;
  unit: string;
  steps: { size: number; ms: number }[];
}

function ladderResult(database: string, ladder: Ladder): Record<string, unknown> {
  const first = ladder.steps[0], last = ladder.steps[ladder.steps.length - 1];
  const ratio = last.ms / first.ms;
  console.log(
    `  ${ladder.name}: ${ladder.steps.map((s) => `${s.size} → ${s.ms.toFixed(2)} ms`).join(", ")}; ` +
      `largest/smallest ${ratio.toFixed(2)}× (goal ≤ ${GOAL_RATIO}×)`,
  );
  return {
    name: `scale (${database}): ${ladder.name}`,
    database,
    unit: ladder.unit,
    steps: ladder.steps.map((s) => ({ size: s.size, ms: s.ms })),
    ratio,
    goal_ratio: GOAL_RATIO,
  };
}

async function getJson(url: string, headers: Record<string, string>, init: RequestInit = {}) {
  const res = await fetch(url, { ...init, headers: { ...headers, ...(init.headers as Record<string, string>) } });
  const body = await res.json();
  if (!res.ok) throw new Error(`${url}: HTTP ${res.status} ${JSON.stringify(body).slice(0, 300)}`);
  return body;
}

/** V8's full collection, where the bench runs with --expose-gc (deno.json's bench task). */
const collectGarbage = (globalThis as { gc?: () => void }).gc;

/** How often (in pages) the walk collects garbage to read the live heap. */
const LIVE_HEAP_EVERY = 100;
/**
 * Page timings behind an initial sync's page median, at least: a small space's walk is a dozen pages,
 * whose median moved with the runtime's warm-up more than with the table (5.7 to 17 ms a page at 1k from
 * run to run, 9.9 at 10k), so a small space is walked again until this many pages were timed.
 */
const SYNC_PAGE_SAMPLES = 100;

/** The JS heap in use once garbage is collected: what the process really holds. */
function liveHeap(): number {
  collectGarbage?.();
  collectGarbage?.();
  return Deno.memoryUsage().heapUsed;
}

/**
 * A whole initial sync, page after page as a client follows nextPageUrl; answers the page costs, the next
 * sync URL and what the walk held in memory. The host runs in this process, so its JS heap is measured:
 * live (after a full collection) before and after the walk and every 100 pages along it, and in use
 * (garbage included) at its peak, sampled after every page and every 50 ms. A sync that streams holds the same at any size; the resident size is reported beside it,
 * though it also carries the generator's garbage and the allocator's and V8's headroom (and, embedded,
 * PGlite's memory), which grow with the data loaded before the walk, not with the walk.
 */
async function walkInitialSync(env: string, headers: Record<string, string>) {
  const liveBefore = liveHeap();
  const rssBefore = Deno.memoryUsage().rss;
  let heapPeak = liveBefore, rssPeak = rssBefore, liveHeapPeak = liveBefore;
  const sample = () => {
    const now = Deno.memoryUsage();
    heapPeak = Math.max(heapPeak, now.heapUsed);
    rssPeak = Math.max(rssPeak, now.rss);
  };
  const timer = setInterval(sample, 50);
  const pages: number[] = [];
  let items = 0;
  let next: string | undefined = `${env}/sync?initial=true`;
  let syncUrl = "";
  const started = performance.now();
  try {
    while (next) {
      const t0 = performance.now();
      const page: { items: unknown[]; nextPageUrl?: string; nextSyncUrl?: string } = await getJson(next, headers);
      pages.push(performance.now() - t0);
      items += page.items.length;
      sample();
      // what the walk really holds along the way, not only at its ends (between two pages' timings)
      if (pages.length % LIVE_HEAP_EVERY === 0) liveHeapPeak = Math.max(liveHeapPeak, liveHeap());
      // the host answers with its public address; the walk goes on at the same host
      next = page.nextPageUrl ? `${env}/sync${new URL(page.nextPageUrl).search}` : undefined;
      if (page.nextSyncUrl) syncUrl = `${env}/sync${new URL(page.nextSyncUrl).search}`;
    }
  } finally {
    clearInterval(timer);
  }
  const totalMs = performance.now() - started;
  const liveAfter = liveHeap();
  liveHeapPeak = Math.max(liveHeapPeak, liveAfter);
  const sorted = [...pages].sort((a, b) => a - b);
  return {
    items,
    pages: pages.length,
    page_ms: pages,
    page_median_ms: sorted[sorted.length >> 1],
    page_p95_ms: sorted[Math.min(sorted.length - 1, Math.ceil(sorted.length * 0.95) - 1)],
    total_ms: totalMs,
    heap_live_before_mb: mb(liveBefore),
    heap_peak_mb: mb(heapPeak),
    heap_live_after_mb: mb(liveAfter),
    heap_live_peak_mb: mb(liveHeapPeak),
    heap_measured_live: Boolean(collectGarbage),
    rss_before_mb: mb(rssBefore),
    rss_peak_mb: mb(rssPeak),
    syncUrl,
  };
}

async function contentLadder(sql: Sql, host: BenchHost, database: string, measure: Measure) {
  const headers = { authorization: `Bearer ${(await createKey(sql, { name: "bench scale delivery", kind: "delivery" })).key}` };
  const env = `${host.baseUrl}/api/content/spaces/${host.space}/environments/master`;
  const graphql = `${host.baseUrl}/api/content/content/v1/spaces/${host.space}/environments/master`;
  const ladders: Record<string, Ladder> = {
    list: { name: "delivery entries (content_type=article, include=2, limit=100)", unit: "published entries", steps: [] },
    one: { name: "delivery entries/<id>", unit: "published entries", steps: [] },
    graphql: { name: "graphql articleCollection (limit 100, related one level deep)", unit: "published entries", steps: [] },
    initial: { name: "sync, a page of an initial sync (median over the whole walk)", unit: "published entries", steps: [] },
    delta: { name: `sync, a delta of ${DELTA} changed entries`, unit: "published entries", steps: [] },
  };
  const walks: Record<string, unknown>[] = [];
  for (const step of CONTENT_STEPS) {
    console.log(`bench: scale, a space of ${step} published entries`);
    const size = await growArticles(sql, step);
    // an article from the middle of the table (generated ones, or the demo's where the step added none)
    const [{ middle }] = await sql<{ middle: string }[]>`
      select id as middle from public.content_entries where stage = 'published' and model_id = 'article'
      order by created_at, id
      offset (select count(*) / 2 from public.content_entries where stage = 'published' and model_id = 'article')
      limit 1`;
    const record = (ladder: Ladder, ms: number) => ladder.steps.push({ size, ms });

    record(ladders.list, await measure("list", () => getJson(`${env}/entries?content_type=article&include=2&limit=100`, headers), ITERATIONS));
    record(ladders.one, await measure("one entry", () => getJson(`${env}/entries/${middle}`, headers), ITERATIONS));
    record(
      ladders.graphql,
      await measure("graphql", async () => {
        const body = await getJson(graphql, headers, {
          method: "POST",
          headers: { "content-type": "application/json" },
          body: JSON.stringify({ query: ARTICLES }),
        });
        if (!body.data?.articleCollection?.items?.length) throw new Error(`graphql: ${JSON.stringify(body).slice(0, 300)}`);
      }, ITERATIONS),
    );

    const walk = await walkInitialSync(env, headers);
    console.log(
      `  initial sync: ${walk.items} items in ${walk.pages} pages, ${(walk.total_ms / 1000).toFixed(1)} s; page median ` +
        `${walk.page_median_ms.toFixed(2)} ms, p95 ${walk.page_p95_ms.toFixed(2)} ms; JS heap live ${walk.heap_live_before_mb} MB → ` +
        `peak ${walk.heap_peak_mb} MB → live ${walk.heap_live_after_mb} MB (live at most ${walk.heap_live_peak_mb} MB); resident ${walk.rss_before_mb} → ${walk.rss_peak_mb} MB`,
    );
    if (walk.items < size) throw new Error(`the initial sync carried ${walk.items} items, the space holds ${size} entries`);
    const pageTimes = [...walk.page_ms];
    while (!QUICK && pageTimes.length < SYNC_PAGE_SAMPLES) pageTimes.push(...(await walkInitialSync(env, headers)).page_ms);
    const pageMedian = median(pageTimes);
    if (pageTimes.length > walk.pages) {
      console.log(`  initial sync walked again: page median ${pageMedian.toFixed(2)} ms over ${pageTimes.length} pages`);
    }
    record(ladders.initial, pageMedian);
    const { syncUrl, page_ms: _pages, ...figures } = walk;
    walks.push({ size, ...figures });

    // a delta: entries changed after the initial sync, as an editor's publishes would change them
    await sql`
      update public.content_entries set revision = revision + 1, updated_at = now(),
        fields = jsonb_set(fields, '{title,en-US}', to_jsonb('Changed ' || id))
      where stage = 'published' and id in (
        select id from public.content_entries where stage = 'published' and model_id = 'article'
        order by created_at desc limit ${DELTA})`;
    const delta = await getJson(syncUrl, headers);
    if (delta.items.length < DELTA) throw new Error(`the delta carried ${delta.items.length} items, not ${DELTA}`);
    record(ladders.delta, await measure("delta", () => getJson(syncUrl, headers), ITERATIONS));
  }
  const peaks = walks.map((w) => w.heap_live_peak_mb as number);
  return [
    ...Object.values(ladders).map((l) => ladderResult(database, l)),
    {
      name: `scale (${database}): initial sync walked whole, memory of the host process`,
      database,
      steps: walks,
      heap_live_peak_mb_smallest: peaks[0],
      heap_live_peak_mb_largest: peaks[peaks.length - 1],
      note: "the host's JS heap: live (after a full collection) before, every 100 pages and after the walk, and in use " +
        "(garbage included) at its peak; " +
        "the walking client runs in the same process and keeps no page; embedded, the process holds PGlite too",
    },
  ];
}

/**
 * Times every run once per pass, one request at a time, for `samples` passes after a warm-up of half as
 * many (as the sequential median's); each pass starts one run further on, so no run always follows the
 * same one. Answers each run's samples.
 */
async function interleaved(runs: (() => Promise<unknown>)[], samples: number): Promise<number[][]> {
  const warm = QUICK ? 1 : Math.max(5, Math.ceil(samples / 2));
  for (let pass = 0; pass < warm; pass++) for (const run of runs) await run();
  const times = runs.map(() => [] as number[]);
  for (let pass = 0; pass < samples; pass++) {
    for (let k = 0; k < runs.length; k++) {
      const i = (pass + k) % runs.length;
      const t0 = performance.now();
      await runs[i]();
      times[i].push(performance.now() - t0);
    }
  }
  return times;
}

/**
 * A form per step (10k, 100k, 1M responses, all in the one responses table), timed only once all are
 * grown, one request at a time to every step in turn (the page and the search of each form, the order
 * turning each pass): a shared machine's load then weighs on every step alike. Timing each step right
 * after its generation compared minutes apart (a 1M page once measured twice its 10k time that way, and
 * the same as it side by side); timing each step in a block of its own consecutive requests, in rounds,
 * still let a burst of load land on one step's block (a round measured a 10k page at 2.8 ms and the
 * 100k page at 10.1 ms, the two rounds before it 4.5 against 4.0 and 5.6 against 5.7). A step's figure
 * is the median of all its requests.
 */
async function formsLadder(sql: Sql, host: BenchHost, database: string) {
  const headers = { authorization: `Bearer ${(await createKey(sql, { name: "bench scale forms", kind: "forms" })).key}` };
  const forms: { size: number; url: string }[] = [];
  for (const step of RESPONSE_STEPS) {
    // the generator's tokens start with the slug's first eight characters: these differ
    const slug = `f${step}-survey`;
    console.log(`bench: scale, a form of ${step} responses`);
    await publishBenchForm(sql, slug, `Scale survey of ${step}`);
    forms.push({ size: await growResponses(sql, slug, step), url: `${host.baseUrl}/api/forms/${slug}/responses?page_size=25` });
  }
  const runs = forms.flatMap((form) => [
    () => getJson(form.url, headers),
    () => getJson(`${form.url}&query=harbor`, headers),
  ]);
  const samples = (QUICK ? 1 : SIDE_BY_SIDE_ROUNDS) * ITERATIONS;
  console.log(`bench: scale, forms side by side, ${samples} requests to each step's page and search in turn`);
  const times = await interleaved(runs, samples);
  const steps = (path: number) => forms.map((form, i) => ({ size: form.size, ms: median(times[i * 2 + path]) }));
  return [
    ladderResult(database, { name: "forms responses list (page_size=25)", unit: "responses of the form", steps: steps(0) }),
    ladderResult(database, {
      name: "forms responses list (query=harbor, page_size=25)",
      unit: "responses of the form",
      steps: steps(1),
    }),
  ];
}

async function bookingsLadder(sql: Sql, host: BenchHost, database: string, measure: Measure) {
  const key = (await createKey(sql, { name: "bench scale scheduling", kind: "scheduling" })).key;
  const headers = { authorization: `Bearer ${key}`, "cal-api-version": "2024-08-13" };
  const list: Ladder = { name: "scheduling bookings list (upcoming, take=100)", unit: "bookings", steps: [] };
  const url = `${host.baseUrl}/api/scheduling/v2/bookings?status=upcoming&take=100`;
  for (const step of BOOKING_STEPS) {
    console.log(`bench: scale, ${step} generated bookings`);
    await growBookings(sql, step);
    const [{ n }] = await sql<{ n: number }[]>`select count(*)::int as n from public.scheduling_bookings`;
    list.steps.push({ size: n, ms: await measure("list", () => getJson(url, headers), ITERATIONS) });
  }
  return [ladderResult(database, list)];
}

export async function benchScale(sql: Sql, url: string, database: string, measure: Measure): Promise<Record<string, unknown>[]> {
  console.log(
    `bench: scale steps on ${database}: spaces of ${CONTENT_STEPS.join(", ")} entries, forms of ` +
      `${RESPONSE_STEPS.join(", ")} responses, ${BOOKING_STEPS.join(", ")} bookings`,
  );
  const have = await publishedEntries(sql);
  if (have > CONTENT_STEPS[0]) console.log(`  (the space already holds ${have} published entries: the first step is that size)`);
  const host = await startBenchHost(url);
  try {
    return [
      ...wantsLadder("content") ? await contentLadder(sql, host, database, measure) : [],
      ...wantsLadder("forms") ? await formsLadder(sql, host, database) : [],
      ...wantsLadder("bookings") ? await bookingsLadder(sql, host, database, measure) : [],
    ];
  } finally {
    await host.stop();
  }
}
