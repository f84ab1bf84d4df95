// deno task interop: the federation against the reference network's own software. Starts @atproto/bsky
// (the reference app view, on the machine's PostgreSQL), its PLC directory and the reference PDS under
// Node 22 (installed as for the bench), then this site on an embedded database with the federation open
// and the app view as network.appview. A joined demo member posts; the reference app view indexes it
// from this server's firehose (verifying every commit and the member's did:plc); and this server's
// proxied getAuthorFeed (a read about somebody on the reference PDS, asked with the member's service
// token) returns that person's post. Exits non-zero when any of it fails.
//
//   INTEROP_DATABASE_URL   the PostgreSQL server the app view uses (default postgres://postgres@127.0.0.1:5432/postgres)
import { AtpAgent } from "@atproto/api";
import { installReference, REFERENCE_DIR } from "../bench/network.ts";
import { connect } from "../shared/db.ts";
import { createContext } from "../shared/context.ts";
import { readConfig } from "../shared/config.ts";
import { freePort, startEmbeddedPostgres } from "../shared/embedded.ts";
import { migrate } from "../shared/migrate.ts";
import { mintPersonJwt } from "../shared/people.ts";
import { importSite } from "../shared/site/import.ts";
import { serveHost } from "../web/host.ts";
import { demoSignIn, loadSiteCommunity } from "../functions/network/demo.ts";
import { memberByEmail } from "../functions/network/store/people.ts";
import { runCli } from "./cli.ts";

const DEMO_SITE = new URL("../demo-site", import.meta.url).pathname;
const MEMBER = "member@demo.sitewire.dev";

function say(line: string) {
  console.log(`interop: ${line}`);
}

async function until<T>(what: string, probe: () => Promise<T | undefined>, ms = 60_000): Promise<T> {
  const end = Date.now() + ms;
  while (Date.now() < end) {
    const found = await probe().catch(() => undefined);
    if (found !== undefined) return found;
    await new Promise((r) => setTimeout(r, 500));
  }
  throw new Error(`timed out: ${what}`);
}

await runCli(async () => {
  const node = await installReference();
  await Deno.copyFile(new URL("./interop/reference-appview.mjs", import.meta.url), `${REFERENCE_DIR}interop.mjs`);
  const serverUrl = Deno.env.get("INTEROP_DATABASE_URL") ?? "postgres://postgres@127.0.0.1:5432/postgres";
  const dbName = `sitewire_interop_${Date.now()}`;
  const admin = connect(serverUrl, { max: 1 });
  await admin.unsafe(`create database ${dbName}`);
  const dbUrl = new URL(serverUrl);
  dbUrl.pathname = `/${dbName}`;
  const redisPort = freePort();
  const redis = new Deno.Command("redis-server", {
    args: ["--port", String(redisPort), "--bind", "127.0.0.1", "--save", "", "--appendonly", "no"],
    stdout: "null",
    stderr: "null",
  }).spawn();
  const child = new Deno.Command(node, {
    args: [`${REFERENCE_DIR}interop.mjs`],
    cwd: REFERENCE_DIR,
    env: { DB_POSTGRES_URL: dbUrl.toString(), DB_POSTGRES_SCHEMA: "interop", REDIS_HOST: `127.0.0.1:${redisPort}`, LOG_ENABLED: "false" },
    stdin: "piped",
    stdout: "piped",
    stderr: "inherit",
  }).spawn();
  const embedded = await startEmbeddedPostgres();
  const controller = new AbortController();
  let server: Deno.HttpServer | undefined;
  try {
    const reader = child.stdout.pipeThrough(new TextDecoderStream()).getReader();
    let buffer = "";
    const nextLine = async () => {
      while (!buffer.includes("\n")) {
        const { value, done } = await reader.read();
        if (done) throw new Error("the reference network stopped");
        buffer += value;
      }
      const [line, ...rest] = buffer.split("\n");
      buffer = rest.join("\n");
      return JSON.parse(line);
    };
    const reference = await nextLine() as { plc: string; pds: string; appview: string; appviewDid: string };
    say(`reference PLC ${reference.plc}, PDS ${reference.pds}, app view ${reference.appview} (${reference.appviewDid})`);

    // this site, federating, on an embedded database
    const sql = connect(embedded.url, { max: 4 });
    await migrate(sql);
    await importSite(sql, { dir: DEMO_SITE });
    const port = freePort();
    const baseUrl = `http://localhost:${port}`;
    const config = {
      ...readConfig(new Map<string, string>()),
      databaseUrl: embedded.url,
      port,
      publicUrl: baseUrl,
      functionsUrl: baseUrl,
      allowPrivateWebhookTargets: true,
      networkPlcUrl: reference.plc,
      networkKeySecret: "interop deployment secret",
    };
    await loadSiteCommunity(sql, DEMO_SITE, config);
    await sql`update public.site_settings set config = jsonb_set(config, '{network}', coalesce(config->'network', '{}') ||
      ${sql.json({ federation: "open", apps: true, appview: { url: reference.appview, did: reference.appviewDid } })})`;
    const ctx = createContext(config, { sql });
    server = serveHost(ctx, { port, hostname: "127.0.0.1", signal: controller.signal, onListen: () => {} });
    await child.stdin.getWriter().write(new TextEncoder().encode(`ws://localhost:${port}\n`));
    await nextLine();
    say(`this site at ${baseUrl}, its firehose followed by the reference app view`);

    // a demo member joins and posts
    const member = (await memberByEmail(sql, MEMBER))!;
    const jwt = await mintPersonJwt(await ctx.secrets.get("jwt"), { id: member.id, email: MEMBER, role: "member" });
    const joined = await (await fetch(`${baseUrl}/network/join`, { method: "POST", headers: { authorization: `Bearer ${jwt}` } })).json();
    if (!joined.did?.startsWith("did:plc:")) throw new Error(`joining failed: ${JSON.stringify(joined)}`);
    say(`${joined.handle} joined as ${joined.did}`);
    const signIn = (await demoSignIn(sql, config, MEMBER, undefined))!;
    const mira = new AtpAgent({ service: baseUrl });
    await mira.login({ identifier: signIn.handle, password: signIn.app_password });
    const text = `hello from the site, ${new Date().toISOString()}`;
    const posted = await mira.post({ text, createdAt: new Date().toISOString() });
    say(`posted ${posted.uri}`);

    // the reference app view indexes it from this server's firehose
    const appview = new AtpAgent({ service: reference.appview });
    await until("the reference app view to index the site's post", async () => {
      const feed = await appview.app.bsky.feed.getAuthorFeed({ actor: joined.did });
      return feed.data.feed.some((i) => i.post.uri === posted.uri) ? true : undefined;
    });
    say("the reference app view indexed the post from this server's firehose");

    // somebody on the reference PDS posts; this server's proxied getAuthorFeed returns it
    const alice = new AtpAgent({ service: reference.pds });
    const handle = `alice${Date.now().toString(36).slice(-6)}.test`;
    await alice.createAccount({ handle, email: `${handle}@interop.invalid`, password: "interop-password" });
    const theirs = await alice.post({ text: "hello from elsewhere", createdAt: new Date().toISOString() });
    const seen = await until("this server's proxied getAuthorFeed to return the post from elsewhere", async () => {
      const feed = await mira.app.bsky.feed.getAuthorFeed({ actor: alice.session!.did });
      return feed.data.feed.some((i) => i.post.uri === theirs.uri) ? feed.data.feed.length : undefined;
    });
    say(`this server's getAuthorFeed about ${handle} (asked of the app view as ${joined.did}) returned ${seen} post(s)`);
    say("passed");
  } finally {
    controller.abort();
    await server?.finished.catch(() => {});
    try {
      await child.stdin.close();
    } catch { /* closed */ }
    const timer = setTimeout(() => child.kill("SIGKILL"), 15_000);
    await child.status;
    clearTimeout(timer);
    redis.kill("SIGTERM");
    await redis.status;
    await admin.unsafe(`drop database if exists ${dbName} with (force)`).catch(() => {});
    await admin.end();
    await embedded.stop();
  }
});
