// `deno task dev` as a new user runs it, in a data directory and on ports of this test's own: the banner,
// .data/dev.json with a working key per kind and a JWT per role, the demo imported only into an empty
// database, keys kept across restarts, and the mode following SITE_MODE or else the site's configuration.
import assert from "node:assert/strict";
import { test } from "../helpers/test.ts";
import { connect } from "../../shared/db.ts";
import { freePort } from "../../shared/embedded.ts";
import { hashKey, KEY_KINDS } from "../../shared/keys.ts";
import { ROLES } from "../../shared/people.ts";
import { AtpAgent } from "@atproto/api";

const root = new URL("../../", import.meta.url).pathname;

interface DevHost {
  output: () => string;
  stop: () => Promise<void>;
}

/** Starts scripts/dev.ts and waits for its banner (a few seconds: PGlite, migrations, maybe the import). */
async function startDev(
  dataDir: string,
  ports: { port: number; pgPort: number },
  env: Record<string, string> = {},
) {
  const child = new Deno.Command(Deno.execPath(), {
    args: ["run", "-A", "scripts/dev.ts"],
    cwd: root,
    clearEnv: true,
    env: {
      PATH: Deno.env.get("PATH") ?? "/usr/bin:/bin",
      HOME: Deno.env.get("HOME") ?? "/tmp",
      NO_COLOR: "1",
      DATA_DIR: dataDir,
      PORT: String(ports.port),
      PGPORT: String(ports.pgPort),
      ...env,
    },
    stdout: "piped",
    stderr: "piped",
  }).spawn();
  let text = "";
  const decoder = new TextDecoder();
  const pump = async (stream: ReadableStream<Uint8Array>) => {
    for await (const chunk of stream) text += decoder.decode(chunk, { stream: true });
  };
  const pumped = Promise.all([pump(child.stdout), pump(child.stderr)]);
  const host: DevHost = {
    output: () => text,
    async stop() {
      try {
        child.kill("SIGTERM");
      } catch {
        // already gone
      }
      await child.status;
      await pumped;
    },
  };
  const deadline = Date.now() + 120_000;
  while (!text.includes("Sitewire is running.")) {
    if (Date.now() > deadline) {
      await host.stop();
      throw new Error(`the dev host did not start:\n${text}`);
    }
    const exited = await Promise.race([
      child.status.then(() => true),
      new Promise((r) => setTimeout(() => r(false), 100)),
    ]);
    if (exited) {
      await pumped;
      throw new Error(`the dev host exited:\n${text}`);
    }
  }
  // the banner is written in one go after the line above
  await new Promise((resolve) => setTimeout(resolve, 200));
  return host;
}

async function readState(dataDir: string) {
  return JSON.parse(await Deno.readTextFile(`${dataDir}/dev.json`));
}

test("task dev: banner, dev.json with a working key per kind and a JWT per role, import once, keys kept, the mode followed", async () => {
  const dataDir = await Deno.makeTempDir({ prefix: "sitewire-dev-test-" });
  const ports = { port: freePort(), pgPort: freePort() };
  let dev = await startDev(dataDir, ports);
  try {
    const banner = dev.output();
    assert.match(
      banner,
      /importing the site from .*demo-site \(git mode\)/,
      "an empty database gets the demo site",
    );
    assert.match(
      banner,
      /warning: records\/articles\/broken-links\.md: links to article\.does-not-exist/,
      "the import's warnings are shown, not only counted",
    );
    assert.match(
      banner,
      new RegExp(`Listening on\\s+127\\.0\\.0\\.1:${ports.port}`),
      "loopback unless HOST says otherwise",
    );
    assert.match(banner, new RegExp(`Written for scripts to ${dataDir}/dev.json`));
    for (const label of ["Content API", "GraphQL", "OpenAPI", "Forms API", "Scheduling API", "Store API"]) {
      assert.match(
        banner,
        new RegExp(`${label}\\s+http://localhost:${ports.port}/`),
        `the banner shows the ${label}`,
      );
    }

    const state = await readState(dataDir);
    assert.equal(state.base_url, `http://localhost:${ports.port}`);
    assert.equal(state.space, "demo");
    assert.deepEqual(Object.keys(state.keys).sort(), [...KEY_KINDS, "delivery_gated"].sort());
    assert.deepEqual(Object.keys(state.people).sort(), [...ROLES].sort());
    for (const [label, key] of Object.entries(state.keys) as [string, string][]) {
      assert.ok(banner.includes(key), `the banner prints the ${label} key`);
      assert.match(key, new RegExp(`^pk_${label.replace("_gated", "")}_[0-9A-Za-z]{32}$`));
    }

    const sql = connect(state.database_url, { max: 1 });
    try {
      // the on-disk database holds a small buffer pool of its own (shared/embedded.ts)
      const [{ shared_buffers }] = await sql<{ shared_buffers: string }[]>`show shared_buffers`;
      assert.equal(shared_buffers, "16MB");
      // every key is stored (by hash) as its kind, only the gated one gated, none revoked
      for (const [label, key] of Object.entries(state.keys) as [string, string][]) {
        const [row] = await sql<{ kind: string; gated: boolean; revoked: boolean }[]>`
          select kind, gated, revoked_at is not null as revoked from public.api_keys where hash = ${await hashKey(
          key,
        )}`;
        assert.deepEqual({ ...row }, {
          kind: label.replace("_gated", ""),
          gated: label === "delivery_gated",
          revoked: false,
        }, label);
      }
      // every demo key names a person who made it, so a management write names one: the support key is
      // the demo support person's (the desk admits a key whose maker is an agent), the rest the administrator's
      for (const [label, key] of Object.entries(state.keys)) {
        const [maker] = await sql<{ email: string | null }[]>`
          select u.email from public.api_keys k left join auth.users u on u.id = k.created_by
          where k.hash = ${await hashKey(key as string)}`;
        const expected = label === "support" ? state.people.support.email : state.people.admin.email;
        assert.equal(maker?.email, expected, `the ${label} key's maker`);
      }
      for (const role of ROLES) {
        const [profile] = await sql<{ role: string }[]>`select role from public.profiles where email = ${
          state.people[role].email
        }`;
        assert.equal(profile.role, role);
      }
    } finally {
      await sql.end();
    }

    // and each works where it belongs
    const base = state.base_url;
    const content = `${base}/api/content/spaces/${state.space}/environments/master`;
    const call = async (url: string, init: RequestInit = {}) => {
      const res = await fetch(url, init);
      const text = await res.text();
      return { status: res.status, body: text ? JSON.parse(text) : undefined };
    };
    const bearer = (token: string, more: Record<string, string> = {}) => ({
      headers: { authorization: `Bearer ${token}`, ...more },
    });
    assert.equal((await call(`${content}/entries?limit=1`, bearer(state.keys.delivery))).status, 200);
    assert.equal(
      (await call(`${content}/entries/article.draft-notes`, bearer(state.keys.preview))).status,
      200,
    );
    assert.equal(
      (await call(`${content}/entries/article.draft-notes`, bearer(state.keys.delivery))).status,
      404,
    );
    const gated = await call(`${content}/entries/article.members-only`, bearer(state.keys.delivery_gated));
    assert.equal(gated.body.fields.body.nodeType, "document");
    assert.equal(
      (await call(`${content}/entries/article.members-only`, bearer(state.keys.delivery))).body.fields.body,
      undefined,
    );
    const managed = await call(
      `${content}/entries?limit=1`,
      bearer(state.keys.management, { "content-type": "application/vnd.contentful.management.v1+json" }),
    );
    assert.equal(managed.status, 200);
    assert.equal((await call(`${base}/api/forms`, bearer(state.keys.forms))).status, 200);
    assert.equal((await call(`${base}/api/scheduling/v2/me`, bearer(state.keys.scheduling))).status, 200);
    const shop = await call(`${base}/api/2024-10/graphql.json`, {
      method: "POST",
      headers: {
        "content-type": "application/json",
        "x-shopify-storefront-access-token": state.keys.storefront,
      },
      body: JSON.stringify({ query: "{ shop { name } }" }),
    });
    assert.equal(typeof shop.body.data.shop.name, "string");
    // the support key's maker is the demo support person, so the desk admits it (Chatwoot's header)
    const profile = await call(`${base}/api/desk/api/v1/profile`, { headers: { api_access_token: state.keys.support } });
    assert.equal(profile.status, 200, JSON.stringify(profile.body));
    assert.equal(profile.body.email, state.people.support.email);
    for (const role of ROLES) {
      const me = await call(`${base}/api/scheduling/v2/me`, bearer(state.people[role].jwt));
      assert.equal(me.status, 200, `${role}: ${JSON.stringify(me.body)}`);
      assert.equal(me.body.data.email, state.people[role].email);
    }
    // a Bluesky app signs in at once as people.member (dev.json "network"), and sees a timeline
    assert.equal(state.network.handle, "mira.demo.sitewire.dev");
    assert.equal(state.network.did, "did:web:mira.demo.sitewire.dev");
    const agent = new AtpAgent({ service: base });
    await agent.login({ identifier: state.network.handle, password: state.network.app_password });
    assert.equal((await agent.com.atproto.server.getSession()).data.email, state.people.member.email);
    assert.ok((await agent.getTimeline()).data.feed.length > 0, "the demo community fills the timeline");
    const second = new AtpAgent({ service: base });
    await second.login({ identifier: state.network2.handle, password: state.network2.app_password });
    assert.notEqual(second.session!.did, agent.session!.did);

    // a restart: nothing imported again, the same keys
    await dev.stop();
    dev = await startDev(dataDir, ports);
    assert.doesNotMatch(dev.output(), /importing/, dev.output());
    assert.deepEqual((await readState(dataDir)).keys, state.keys);
    assert.deepEqual((await readState(dataDir)).network, state.network, "the app password outlives a restart");

    // SITE_MODE=cloud imports again in cloud mode; the next plain start goes back to site.yaml's git mode
    await dev.stop();
    dev = await startDev(dataDir, ports, { SITE_MODE: "cloud" });
    assert.match(
      dev.output(),
      /holds the site in git mode; SITE_MODE says cloud: importing it again in cloud mode/,
    );
    assert.match(dev.output(), /space demo, cloud mode/);
    await dev.stop();
    dev = await startDev(dataDir, ports);
    assert.match(
      dev.output(),
      /holds the site in cloud mode; its configuration says git: importing it again in git mode/,
    );
    assert.match(dev.output(), /space demo, git mode/);
    assert.deepEqual((await readState(dataDir)).keys, state.keys, "the keys outlive the imports");
  } finally {
    await dev.stop();
    await Deno.remove(dataDir, { recursive: true }).catch(() => {});
  }
});
