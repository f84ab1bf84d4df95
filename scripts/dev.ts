// deno task dev — the whole site on this machine: embedded PGlite (or DATABASE_URL), migrations, the
// demo site imported when the database is empty (or again when its mode is not the one asked for),
// every function and page on PORT (HOST, loopback by default), demo keys printed. DATA_DIR and PGPORT
// place the embedded database and dev.json elsewhere.
import { readConfig } from "../shared/config.ts";
import { createContext } from "../shared/context.ts";
import { connect, type Sql } from "../shared/db.ts";
import { startEmbeddedPostgres } from "../shared/embedded.ts";
import { createKey, hashKey, KEY_KINDS, type KeyKind } from "../shared/keys.ts";
import { ensurePerson, mintPersonJwt, type Role, ROLES } from "../shared/people.ts";
import { serveHost } from "../web/host.ts";
import { createDispatcher } from "../shared/webhooks/dispatcher.ts";
import { allWebhookAdapters } from "../web/webhook-adapters.ts";
import { createPushWorker } from "../shared/site/push.ts";
import { sweep, SWEEP_AT_UTC } from "../functions/content/domain/management-uploads.ts";
import { startDaily } from "../shared/daily.ts";
import { runMeetingSweep, SWEEP_EVERY_MS } from "../functions/scheduling-api/sweep.ts";
import { sweepCarts } from "../functions/storefront-api/store/carts.ts";
import { startCartSweep } from "../functions/storefront-api/sweep.ts";
import { demoSignIn } from "../functions/network/demo.ts";
import { CRAWL_AT_UTC, crawlDaily, projectorLoop } from "../functions/network/federation/projector.ts";
import { dataDir, type DevState, devStateFile, readDevState, runCli } from "./cli.ts";
import { idleReclaimer } from "./dev-memory.ts";
import { prepareDevDatabase, prepareNewEmbeddedDatabase } from "./dev-database.ts";

async function keyStillValid(
  sql: Sql,
  key: string | undefined,
  kind: string,
  gated: boolean,
  maker: string | null,
): Promise<boolean> {
  if (!key) return false;
  const [row] = await sql`select 1 from public.api_keys
    where hash = ${await hashKey(key)} and kind = ${kind} and gated = ${gated} and revoked_at is null
      and created_by is not distinct from ${maker}`;
  return Boolean(row);
}

await runCli(async () => {
  const config = readConfig(Deno.env, { development: true });
  const data = dataDir();
  // a new embedded database is made ready (migrated, imported) by a process of its own, whose memory goes
  // with it (scripts/dev-database.ts); one that exists, or a server, is brought up to date here
  const pgliteDir = `${data}/pglite`;
  if (!config.databaseUrl && !(await Deno.stat(`${pgliteDir}/PG_VERSION`).then(() => true, () => false))) {
    await prepareNewEmbeddedDatabase(pgliteDir);
  }
  const embedded = config.databaseUrl ? undefined : await startEmbeddedPostgres({
    dataDir: pgliteDir,
    port: Number(Deno.env.get("PGPORT") ?? 54322),
  });
  const databaseUrl = config.databaseUrl ?? embedded!.url;
  const sql = connect(databaseUrl);
  await prepareDevDatabase(sql, config);
  const [site] = await sql<{ slug: string; mode: string; config: { api?: { space?: string } } }[]>`
    select slug, mode, config from public.site_settings`;

  const ctx = createContext({ ...config, databaseUrl }, { sql });
  const jwtSecret = await ctx.secrets.get("jwt");
  const people: DevState["people"] = {};
  const personIds: Record<string, string> = {};
  for (const role of ROLES) {
    const person = await ensurePerson(sql, `${role}@demo.sitewire.dev`, role as Role);
    people[role] = { email: person.email, jwt: await mintPersonJwt(jwtSecret, person) };
    personIds[role] = person.id;
  }

  // keys are stored as hashes only, so the demo keys live in .data/dev.json and are re-created if lost.
  // The support key is made by the demo support person (the desk admits a key whose maker is on it), the
  // others by the demo administrator, so their writes name a person (createdBy, updatedBy).
  const previous = await readDevState();
  const keys: Record<string, string> = {};
  const wanted: [string, KeyKind, boolean][] = [
    ...KEY_KINDS.map((k) => [k, k, false] as [string, KeyKind, boolean]),
    ["delivery_gated", "delivery", true],
  ];
  for (const [label, kind, gated] of wanted) {
    const old = previous?.keys?.[label];
    const maker = kind === "support" ? personIds.support : personIds.admin;
    keys[label] = await keyStillValid(sql, old, kind, gated, maker)
      ? old!
      : (await createKey(sql, { name: `demo ${label.replace("_", " ")} key`, kind, gated, createdBy: maker })).key;
  }

  // members who can sign a Bluesky app in at once: people.member, and a second one to talk to
  const network = await demoSignIn(sql, config, people.member.email, previous?.network?.app_password);
  const network2 = await demoSignIn(sql, config, "tova@demo.sitewire.dev", previous?.network2?.app_password);

  const baseUrl = config.publicUrl;
  const state: DevState = {
    base_url: baseUrl,
    database_url: databaseUrl,
    space: site.config?.api?.space ?? site.slug,
    keys,
    people,
    ...(network ? { network } : {}),
    ...(network2 ? { network2 } : {}),
  };
  await Deno.mkdir(data, { recursive: true });
  await Deno.writeTextFile(devStateFile(), JSON.stringify(state, null, 2) + "\n");

  // loopback unless HOST says otherwise: the banner prints live keys. Half a second after a burst of requests
  // the host gives its garbage back (a full collection and malloc_trim, scripts/dev-memory.ts)
  const reclaimer = idleReclaimer();
  serveHost(ctx, {
    port: config.port,
    hostname: Deno.env.get("HOST") ?? "127.0.0.1",
    onListen: (addr) => printBanner(state, site.mode, addr),
    activity: reclaimer,
  });

  // Webhooks: one dispatcher delivers every API's outbox rows through its adapter (the registry the
  // deployed delivery route uses too). The embedded PGlite hands a NOTIFY only to the connection that
  // committed it, so there it polls instead.
  const dispatcher = createDispatcher({
    sql,
    clock: ctx.clock,
    adapters: allWebhookAdapters(ctx),
    allowPrivate: config.allowPrivateWebhookTargets,
    listen: embedded ? false : undefined,
  });
  dispatcher.start();
  // Cloud mode: publishes, unpublishes and deletes queued for the content directory are written (and
  // committed) there; POST /api/content/repository/push does the same where no host runs this loop.
  const pusher = createPushWorker({
    sql,
    storage: ctx.storage,
    clock: ctx.clock,
    listen: embedded ? false : undefined,
  });
  pusher.start();
  // Federation (network.federation open): what the admin or SQL changes of joined members' public rows
  // becomes commits of their repositories (the directory is NETWORK_PLC_URL, the relay NETWORK_RELAY_URL
  // or network.relay), and the daily requestCrawl to the relay
  const projector = projectorLoop(ctx, { listen: embedded ? false : undefined });
  projector.start();
  const dailyCrawl = startDaily({
    at: CRAWL_AT_UTC,
    clock: ctx.clock,
    run: () => crawlDaily(ctx),
    onError: (error) => console.error("network crawl:", error),
  });
  // the daily upload sweep at 04:50 UTC, which pg_cron runs where deployed (migration 036)
  const uploadSweep = startDaily({
    at: SWEEP_AT_UTC,
    clock: ctx.clock,
    run: (now) => sweep(sql, ctx.storage, { now }),
    onError: (error) => console.error("upload sweep:", error),
  });
  // the nightly cart sweep: carts thirty days after their last change (pg_cron runs it where deployed)
  const cartSweep = startCartSweep({ clock: ctx.clock, sweep: (now) => sweepCarts(sql, now) });
  // meetings whose room closed end (MEETING_ENDED) even when no host pressed "end"
  const meetingSweep = setInterval(
    () => runMeetingSweep(ctx).catch((error) => console.error("meeting sweep:", error)),
    SWEEP_EVERY_MS,
  );

  const stop = async () => {
    reclaimer.stop();
    uploadSweep.stop();
    dailyCrawl.stop();
    await projector.stop();
    cartSweep.stop();
    clearInterval(meetingSweep);
    await dispatcher.stop();
    await pusher.stop();
    await sql.end({ timeout: 1 });
    await embedded?.stop();
    Deno.exit(0);
  };
  Deno.addSignalListener("SIGINT", stop);
  Deno.addSignalListener("SIGTERM", stop);
});

function printBanner(state: DevState, mode: string, addr: Deno.NetAddr) {
  const rows: [string, string][] = [
    ["Site", `${state.base_url}  (space ${state.space}, ${mode} mode)`],
    [
      "Listening on",
      `${addr.hostname}:${addr.port}${
        addr.hostname === "127.0.0.1" ? "  (this machine only; HOST=0.0.0.0 opens it)" : ""
      }`,
    ],
    ["Content API", `${state.base_url}/api/content/spaces/${state.space}/environments/master`],
    ["Images", `${state.base_url}/api/media/${state.space}/...`],
    ["GraphQL", `${state.base_url}/api/content/content/v1/spaces/${state.space}/environments/master`],
    ["OpenAPI", `${state.base_url}/openapi.json  (reference page: ${state.base_url}/api)`],
    ["Forms API", `${state.base_url}/api/forms  (form pages: ${state.base_url}/to/<slug>)`],
    ["Scheduling API", `${state.base_url}/api/scheduling/v2  (booker: ${state.base_url}/book/<slug>)`],
    [
      "Store API",
      `${state.base_url}/api/2024-10/graphql.json  (cart handoff: ${state.base_url}/cart/c/<token>)`,
    ],
    ["Analytics", `${state.base_url}/api/events`],
    [
      "Protocol server",
      `${state.base_url}  (Bluesky apps: service ${state.base_url}; account page ${state.base_url}/account/network)`,
    ],
    ["Functions", `${state.base_url}/functions/v1/<name>/...`],
    ["Database", state.database_url],
  ];
  const width = Math.max(...rows.map(([k]) => k.length), ...Object.keys(state.keys).map((k) => k.length + 4));
  console.log("\nSitewire is running.\n");
  for (const [label, value] of rows) console.log(`  ${label.padEnd(width)}  ${value}`);
  console.log("\n  API keys");
  for (const [kind, key] of Object.entries(state.keys)) console.log(`    ${kind.padEnd(width - 2)}  ${key}`);
  console.log("\n  People (JWT, 7 days)");
  for (const [role, person] of Object.entries(state.people)) {
    console.log(`    ${role.padEnd(width - 2)}  ${person.email}\n    ${"".padEnd(width - 2)}  ${person.jwt}`);
  }
  for (const [label, member] of [["network", state.network], ["network2", state.network2]] as const) {
    if (!member) continue;
    console.log(`\n  ${label === "network" ? "Bluesky app sign-in (people.member)" : "A second member (network2)"}`);
    console.log(`    handle        ${member.handle}\n    did           ${member.did}\n    app password  ${member.app_password}`);
  }
  console.log(`\n  Written for scripts to ${devStateFile()}\n`);
}
