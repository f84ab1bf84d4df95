// Support desk bench, on its own host over the bench's database (the desk's per-address guards count
// each simulated visitor by X-Forwarded-For, so this host trusts one proxy):
//
// 1. Live latency: an agent's line, posted through the application API, from its commit (the moment the
//    commit's support_live notification reaches a listener of the bench) until the widget (sdk.js in
//    Chromium, embedded on a loopback third-party page) shows it; p50/p95 over the samples, with the
//    whole POST sent → shown beside it. Goal p95 ≤ 100 ms.
// 2. Load: SUPPORT_CONTACTS (200) contacts, each with its own thread and Action Cable subscription, post
//    SUPPORT_LINES (20) lines at one a second while agents answer every fifth line; checks that no line
//    is lost, every thread's subscriber received its lines once and in commit order, the webhook
//    receiver got exactly one message_created per line, and the guards (one line a second, five guests
//    an hour per address, eight threads an hour) still refuse what exceeds them during the load.
import type { Browser } from "playwright-core";
import { readConfig } from "../shared/config.ts";
import { createContext } from "../shared/context.ts";
import { connect } from "../shared/db.ts";
import { freePort } from "../shared/embedded.ts";
import { createKey } from "../shared/keys.ts";
import { ensurePerson } from "../shared/people.ts";
import { webhookAdapters } from "../functions/support-api/webhook-adapter.ts";
import { createDispatcher } from "../shared/webhooks/dispatcher.ts";
import { serveHost } from "../web/host.ts";
import { CHROMIUM_PATH, launchChromium } from "../tests/helpers/browser.ts";
import { benchSize } from "./size.ts";
import { percentile } from "./stats.ts";

const CONTACTS = benchSize("SUPPORT_CONTACTS", 200, 10);
const LINES = benchSize("SUPPORT_LINES", 20, 3);
const LATENCY_SAMPLES = benchSize("SUPPORT_LATENCY_SAMPLES", 60, 5);

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

interface Answer {
  status: number;
  body: any;
}

async function call(method: string, url: string, body?: unknown, headers: Record<string, string> = {}): Promise<Answer> {
  const response = await fetch(url, {
    method,
    headers: { ...(body === undefined ? {} : { "content-type": "application/json" }), ...headers },
    body: body === undefined ? undefined : JSON.stringify(body),
  });
  const text = await response.text();
  return { status: response.status, body: text ? JSON.parse(text) : null };
}

function expectOk(answer: Answer, what: string) {
  if (answer.status !== 200 && answer.status !== 201) throw new Error(`${what}: ${answer.status} ${JSON.stringify(answer.body)}`);
  return answer.body;
}

/** A raw Action Cable subscriber of one thread: message.created ids in arrival order, with arrival times. */
function subscriber(cableUrl: string, pubsubToken: string) {
  const identifier = JSON.stringify({ channel: "RoomChannel", pubsub_token: pubsubToken });
  const ids: number[] = [];
  const arrivedAt = new Map<number, number>();
  const socket = new WebSocket(cableUrl, ["actioncable-v1-json"]);
  const confirmed = new Promise<void>((resolve, reject) => {
    socket.onerror = () => reject(new Error("cable socket failed"));
    socket.onmessage = (event) => {
      const frame = JSON.parse(event.data);
      if (frame.type === "welcome") socket.send(JSON.stringify({ command: "subscribe", identifier }));
      else if (frame.type === "confirm_subscription") resolve();
      else if (frame.type === "reject_subscription") reject(new Error("subscription rejected"));
      else if (frame.message?.event === "message.created") {
        ids.push(frame.message.data.id);
        arrivedAt.set(frame.message.data.id, Date.now());
      }
    };
  });
  return { ids, arrivedAt, confirmed, close: () => socket.close() };
}

export async function benchSupport(databaseUrl: string): Promise<Record<string, unknown>[]> {
  const sql = connect(databaseUrl, { max: 10 });
  const port = freePort();
  const baseUrl = `http://localhost:${port}`;
  const config = {
    ...readConfig(new Map()),
    databaseUrl,
    port,
    publicUrl: baseUrl,
    functionsUrl: baseUrl,
    trustedProxies: 1,
    allowPrivateWebhookTargets: true,
  };
  const ctx = createContext(config, { sql });
  const controller = new AbortController();
  const server = serveHost(ctx, { port, signal: controller.signal, onListen: () => {} });
  const dispatcher = createDispatcher({ sql, clock: ctx.clock, adapters: webhookAdapters(ctx), allowPrivate: true });
  dispatcher.start();
  const [site] = await sql<{ slug: string; config: { api?: { space?: string } } }[]>`select slug, config from public.site_settings`;
  const space = site.config?.api?.space ?? site.slug;
  const client = `${baseUrl}/api/desk/public/api/v1/inboxes/${space}`;
  const app = `${baseUrl}/api/desk/api/v1/accounts/1`;
  const cableUrl = `${baseUrl.replace(/^http/, "ws")}/api/desk/cable`;
  const agents = await Promise.all(Array.from({ length: 4 }, async (_, i) => {
    const person = await ensurePerson(sql, `bench-agent-${i}@desk.bench`, "support");
    return (await createKey(sql, { name: `bench agent ${i}`, kind: "support", createdBy: person.id })).key;
  }));
  let addresses = 0;
  const nextAddress = () => {
    addresses++;
    return `10.${Math.floor(addresses / 62500) % 250}.${Math.floor(addresses / 250) % 250}.${(addresses % 250) + 1}`;
  };
  const agentLine = (key: string, conversation: number, content: string) =>
    call("POST", `${app}/conversations/${conversation}/messages`, { content, message_type: "outgoing" }, { api_access_token: key });

  // When each line's transaction committed, as the database tells it: support_live is notified by the
  // commit (a separate connection of the bench's own listens, as the cable's does)
  const committedAt = new Map<number, number>();
  const commits = await sql.listen("support_live", (payload) => {
    const notice = JSON.parse(payload);
    if (notice.event === "message.created") committedAt.set(notice.message_id, Date.now());
  });

  const results: Record<string, unknown>[] = [];
  try {
    results.push(await liveLatency());
    results.push(await load());
  } finally {
    await commits.unlisten();
    await dispatcher.stop();
    controller.abort();
    await server.finished;
    await sql.end();
  }
  return results;

  // ---- 1. agent line → shown in the widget ----
  async function liveLatency(): Promise<Record<string, unknown>> {
    const name = "support: agent line → shown in the widget (Chromium, loopback)";
    if (!await Deno.stat(CHROMIUM_PATH).then(() => true, () => false)) {
      console.log(`bench: ${name}: skipped, no Chromium at ${CHROMIUM_PATH}`);
      return { name, skipped: `no Chromium at ${CHROMIUM_PATH}` };
    }
    console.log(`bench: ${name}, ${LATENCY_SAMPLES} lines`);
    const page3 = Deno.serve({ hostname: "127.0.0.1", port: 0, onListen() {} }, () =>
      new Response(
        `<!doctype html><html><body><h1>A third-party page</h1>
<script src="${baseUrl}/api/desk/packs/js/sdk.js"></script>
<script>
window.chatwootSDK.run({ websiteToken: ${JSON.stringify(space)}, baseUrl: ${JSON.stringify(baseUrl)} });
// when each line appears in the widget's list (wall clock, comparable with the bench's)
window.shown = {};
const watch = () => {
  const list = document.querySelector("#cw-widget-holder").shadowRoot.querySelector("ol");
  new MutationObserver(() => {
    const now = Date.now();
    for (const li of list.querySelectorAll("li[data-id]")) window.shown[li.dataset.id] ??= now;
  }).observe(list, { childList: true });
};
window.addEventListener("chatwoot:ready", watch);
</script></body></html>`,
        { headers: { "content-type": "text/html" } },
      ));
    let browser: Browser | undefined;
    try {
      browser = await launchChromium();
      const page = await browser.newPage();
      await page.goto(`http://127.0.0.1:${page3.addr.port}/`);
      await page.waitForFunction(() => (window as any).$chatwoot?.hasLoaded === true);
      await page.evaluate(() => (window as any).$chatwoot.toggle("open"));
      await page.getByRole("textbox", { name: "Your message" }).fill("Hello, a question for the bench");
      await page.keyboard.press("Enter");
      // the acknowledgement arrives once the subscription holds (the widget catches up on it)
      await page.getByText("Thanks! Someone from the team will answer here shortly.").waitFor();
      const { conversation } = await page.evaluate((key) => JSON.parse(localStorage.getItem(key)!), `cw_sitewire_${space}`);
      const fromCommit: number[] = [];
      const fromPost: number[] = [];
      for (let i = 0; i < LATENCY_SAMPLES; i++) {
        const sent = Date.now();
        const line = expectOk(await agentLine(agents[0], conversation, `bench answer ${i}`), "agent line");
        await page.waitForFunction((id) => (window as any).shown[id] !== undefined, line.id, { polling: 5 });
        const shownAt = await page.evaluate((id) => (window as any).shown[id], line.id);
        fromCommit.push(shownAt - committedAt.get(line.id)!);
        fromPost.push(shownAt - sent);
        await sleep(20);
      }
      const result = {
        name,
        samples: fromCommit.length,
        p50_ms: percentile(fromCommit, 50),
        p95_ms: percentile(fromCommit, 95),
        max_ms: Math.max(...fromCommit),
        goal_p95_ms: 100,
        measured_from: "the commit, as support_live's notification reaches a listener of the bench",
        post_sent_to_shown_p50_ms: percentile(fromPost, 50),
        post_sent_to_shown_p95_ms: percentile(fromPost, 95),
      };
      console.log(`  committed → shown: p50 ${result.p50_ms} ms, p95 ${result.p95_ms} ms, max ${result.max_ms} ms; ` +
        `POST sent → shown: p50 ${result.post_sent_to_shown_p50_ms} ms, p95 ${result.post_sent_to_shown_p95_ms} ms`);
      return result;
    } finally {
      await browser?.close();
      await page3.shutdown();
    }
  }

  // ---- 2. many contacts at once ----
  async function load(): Promise<Record<string, unknown>> {
    const name = `support: ${CONTACTS} contacts × ${LINES} lines at one a second while agents answer`;
    console.log(`bench: ${name}`);
    // a loopback receiver of the desk's webhooks
    const deliveries = new Map<number, number>();
    let receivedTotal = 0;
    const receiver = Deno.serve({ hostname: "127.0.0.1", port: 0, onListen() {} }, async (request) => {
      const body = await request.json();
      if (body.event === "message_created") {
        receivedTotal++;
        deliveries.set(body.id, (deliveries.get(body.id) ?? 0) + 1);
      }
      return new Response(null, { status: 204 });
    });
    const hook = expectOk(
      await call("POST", `${app}/webhooks`, {
        url: `http://127.0.0.1:${receiver.addr.port}/desk`,
        subscriptions: ["message_created"],
      }, { api_access_token: agents[0] }),
      "webhook",
    ).payload.webhook;

    try {
      const setupStarted = performance.now();
      const threads = await Promise.all(Array.from({ length: CONTACTS }, async () => {
        const from = { "x-forwarded-for": nextAddress() };
        const contact = expectOk(await call("POST", `${client}/contacts`, {}, from), "contact");
        const conversation = expectOk(
          await call("POST", `${client}/contacts/${contact.source_id}/conversations`, {}, from),
          "conversation",
        );
        const live = subscriber(cableUrl, conversation.pubsub_token);
        await live.confirmed;
        return {
          from,
          id: conversation.id as number,
          root: `${client}/contacts/${contact.source_id}/conversations/${conversation.id}`,
          live,
          posted: [] as { id: number; sent: number }[],
          // lines the thread opened with (the desk's prompt), made before the subscription
          before: new Set<number>((conversation.messages ?? []).map((m: { id: number }) => m.id)),
        };
      }));
      console.log(`  ${CONTACTS} contacts, threads and subscriptions in ${Math.round(performance.now() - setupStarted)} ms`);

      const refusals = { lineGuard: "", guestGuard: "", threadGuard: "" };
      const guards = (async () => {
        await sleep(Math.min(LINES, 10) * 500); // mid-load
        // two lines of one contact at once: one is taken, the other refused
        const from = { "x-forwarded-for": nextAddress() };
        const contact = expectOk(await call("POST", `${client}/contacts`, {}, from), "guard contact");
        const threadsOf = `${client}/contacts/${contact.source_id}/conversations`;
        const first = expectOk(await call("POST", threadsOf, {}, from), "guard thread");
        const pair = await Promise.all([1, 2].map((n) => call("POST", `${threadsOf}/${first.id}/messages`, { content: `twin ${n}` }, from)));
        refusals.lineGuard = pair.map((a) => a.status).sort().join(",");
        // a ninth thread within the hour
        const more = [];
        for (let i = 0; i < 8; i++) more.push((await call("POST", threadsOf, {}, from)).status);
        refusals.threadGuard = more.join(",");
        // a sixth guest from one address within the hour
        const one = { "x-forwarded-for": nextAddress() };
        const guests = [];
        for (let i = 0; i < 6; i++) guests.push((await call("POST", `${client}/contacts`, {}, one)).status);
        refusals.guestGuard = guests.join(",");
      })();

      const started = performance.now();
      let agentTurn = 0;
      const agentAnswers: Promise<void>[] = [];
      await Promise.all(threads.map(async (thread, n) => {
        await sleep(Math.random() * 1000); // visitors do not all start in the same millisecond
        for (let k = 0; k < LINES; k++) {
          const sent = Date.now();
          const answer = await call("POST", `${thread.root}/messages`, { content: `contact ${n} line ${k}`, echo_id: `c${n}-${k}` }, thread.from);
          const line = Array.isArray(answer.body) ? answer.body[0] : answer.body;
          if (answer.status !== 200) throw new Error(`contact ${n} line ${k}: ${answer.status} ${JSON.stringify(answer.body)}`);
          thread.posted.push({ id: line.id, sent });
          if (k % 5 === 4) {
            const key = agents[agentTurn++ % agents.length];
            agentAnswers.push(agentLine(key, thread.id, `answer to contact ${n} after line ${k}`).then((a) => {
              expectOk(a, "agent answer");
            }));
          }
          // one a second: the next line leaves a second after this one was taken
          await sleep(1000);
        }
      }));
      await Promise.all(agentAnswers);
      await guards;
      const postedIn = performance.now() - started;

      // every line of every thread, as stored, in commit order
      const ids = threads.map((t) => t.id);
      const stored = await sql<{ conversation_id: number; ids: number[]; contact_lines: number }[]>`
        select conversation_id, array_agg(id order by id) as ids,
               count(*) filter (where message_type = 0)::int as contact_lines
        from public.support_messages where conversation_id = any(${ids}) group by conversation_id`;
      const byThread = new Map(stored.map((s) => [s.conversation_id, s]));
      // wait for the last pushes
      const pushDeadline = Date.now() + 20_000;
      while (Date.now() < pushDeadline && threads.some((t) => t.live.ids.length < (byThread.get(t.id)?.ids.length ?? 0))) await sleep(50);
      let linesLost = 0;
      let outOfOrder = 0;
      let pushMissing = 0;
      let pushDuplicated = 0;
      const pushLatency: number[] = [];
      for (const thread of threads) {
        const row = byThread.get(thread.id)!;
        linesLost += LINES - row.contact_lines;
        const seen = new Set(thread.live.ids);
        pushDuplicated += thread.live.ids.length - seen.size;
        pushMissing += row.ids.filter((id) => !seen.has(id) && !thread.before.has(id)).length;
        const sameOrder = thread.live.ids.filter((id) => row.ids.includes(id));
        if (sameOrder.join(",") !== row.ids.filter((id) => seen.has(id)).join(",")) outOfOrder++;
        for (const posted of thread.posted) {
          const at = thread.live.arrivedAt.get(posted.id);
          const committed = committedAt.get(posted.id);
          if (at !== undefined && committed !== undefined) pushLatency.push(at - committed);
        }
        thread.live.close();
      }
      const expected = stored.flatMap((s) => s.ids);
      // the webhook outbox drains
      const drainStarted = performance.now();
      const drainDeadline = Date.now() + 120_000;
      while (Date.now() < drainDeadline && expected.some((id) => !deliveries.has(id))) await sleep(100);
      const drainedIn = performance.now() - drainStarted;
      const webhookMissing = expected.filter((id) => !deliveries.has(id)).length;
      const webhookDuplicated = [...deliveries.values()].filter((count) => count > 1).length;

      const result = {
        name,
        contacts: CONTACTS,
        lines_per_contact: LINES,
        contact_lines: CONTACTS * LINES,
        messages_in_threads: expected.length,
        posting_seconds: Math.round(postedIn / 100) / 10,
        lines_lost: linesLost,
        threads_out_of_order: outOfOrder,
        live_pushes_missing: pushMissing,
        live_pushes_duplicated: pushDuplicated,
        contact_line_committed_to_subscriber_p50_ms: percentile(pushLatency, 50),
        contact_line_committed_to_subscriber_p95_ms: percentile(pushLatency, 95),
        webhook_message_created_missing: webhookMissing,
        webhook_message_created_duplicated: webhookDuplicated,
        webhook_deliveries: receivedTotal,
        webhook_drain_after_posting_ms: Math.round(drainedIn),
        guards_during_load: {
          "two lines at once (one a second)": refusals.lineGuard,
          "threads 2..9 of one contact (eight an hour)": refusals.threadGuard,
          "guests 1..6 from one address (five an hour)": refusals.guestGuard,
        },
      };
      console.log(`  ${JSON.stringify(result)}`);
      const ok = linesLost === 0 && outOfOrder === 0 && pushMissing === 0 && pushDuplicated === 0 &&
        webhookMissing === 0 && webhookDuplicated === 0 && refusals.lineGuard === "200,429" &&
        refusals.threadGuard.endsWith(",429") && refusals.guestGuard === "200,200,200,200,200,429";
      if (!ok) throw new Error(`support load: a check failed: ${JSON.stringify(result)}`);
      return result;
    } finally {
      await call("DELETE", `${app}/webhooks/${hook.id}`, undefined, { api_access_token: agents[0] });
      await receiver.shutdown();
    }
  }
}

// `deno run -A bench/support.ts`: this part alone, on a fresh embedded database, or with
// BENCH_DATABASE_URL on a fresh database of that server (made and dropped here)
if (import.meta.main) {
  const { startEmbeddedPostgres } = await import("../shared/embedded.ts");
  const { migrate } = await import("../shared/migrate.ts");
  const { importSite } = await import("../shared/site/import.ts");
  const server = Deno.env.get("BENCH_DATABASE_URL");
  const embedded = server ? undefined : await startEmbeddedPostgres();
  let url = embedded?.url;
  const name = `sitewire_bench_support_${Date.now()}`;
  const admin = server ? connect(server, { max: 1 }) : undefined;
  if (admin) {
    await admin.unsafe(`create database ${name}`);
    const u = new URL(server!);
    u.pathname = `/${name}`;
    url = u.toString();
  }
  const setup = connect(url!, { max: 2 });
  await migrate(setup);
  await importSite(setup, { dir: new URL("../demo-site", import.meta.url).pathname });
  await setup.end();
  console.log(JSON.stringify(await benchSupport(url!), null, 2));
  await admin?.unsafe(`drop database if exists ${name} with (force)`);
  await admin?.end();
  await embedded?.stop();
  Deno.exit(0);
}
