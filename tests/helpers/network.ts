// Members of the site's community for protocol tests: a person with a username and an app password, and
// an AtpAgent (the real client) signed in as them against the running host.
import { AtpAgent } from "@atproto/api";
import type { Sql } from "../../shared/db.ts";
import { Database, PlcServer } from "@did-plc/server";
import type { FunctionContext } from "../../shared/context.ts";
import type { RuntimeConfig } from "../../shared/config.ts";
import { freePort } from "../../shared/embedded.ts";
import { ensurePerson, mintPersonJwt } from "../../shared/people.ts";
import { serveTestHost } from "./host.ts";
import { hashAppPassword } from "../../functions/network/sessions.ts";
import { insertAppPassword } from "../../functions/network/store/sessions.ts";

export const HANDLE_DOMAIN = "demo.sitewire.dev";

export interface TestMember {
  id: string;
  username: string;
  handle: string;
  did: string;
  password: string;
}

let made = 0;

/** A new member with a username unique to this run and an app password. */
export async function newMember(sql: Sql, stem = "m", options: { displayName?: string } = {}): Promise<TestMember> {
  const username = `${stem}${Date.now().toString(36)}${(made++).toString(36)}${Math.floor(Math.random() * 1296).toString(36)}`
    .toLowerCase().slice(0, 30);
  const person = await ensurePerson(sql, `${username}@example.test`);
  await sql`update public.profiles set username = ${username}, display_name = ${options.displayName ?? username}
    where id = ${person.id}`;
  const password = `${crypto.randomUUID().slice(0, 4)}-${crypto.randomUUID().slice(0, 4)}-abcd-efgh`;
  await insertAppPassword(sql, {
    personId: person.id,
    name: "tests",
    hash: await hashAppPassword(password),
    privileged: false,
    now: new Date(),
  });
  const handle = `${username}.${HANDLE_DOMAIN}`;
  return { id: person.id, username, handle, did: `did:web:${handle}`, password };
}

/** The real client signed in as the member; `address` stands in for the caller's address (X-Forwarded-For). */
export async function signedIn(baseUrl: string, member: TestMember, address?: string): Promise<AtpAgent> {
  const agent = new AtpAgent({ service: baseUrl, ...(address ? { fetch: fromAddress(address) } : {}) });
  await agent.login({ identifier: member.handle, password: member.password });
  return agent;
}

/** A fetch that says it comes from `address` (the host trusts one proxy in tests). */
export function fromAddress(address: string): typeof fetch {
  return (input, init) => {
    const request = new Request(input, init);
    request.headers.set("x-forwarded-for", address);
    return fetch(request);
  };
}

/** A host with the wider network reachable: a PLC directory from npm (in memory) and the site on loopback. */
export interface FederationHost {
  baseUrl: string;
  plcUrl: string;
  ctx: FunctionContext;
  /** the site's session of a member, as the site's own pages hold it */
  siteJwt(member: TestMember): Promise<string>;
  /** a POST of JSON (an empty object when no body), with a bearer when given */
  post(path: string, token?: string, body?: unknown): Promise<Response>;
  /** an XRPC query by name with its parameters */
  get(nsid: string, params: Record<string, string>): Promise<Response>;
  close(): Promise<void>;
}

export async function startFederationHost(sql: Sql, settings: Partial<RuntimeConfig> = {}): Promise<FederationHost> {
  const plcPort = freePort();
  const plc = PlcServer.create({ db: Database.mock(), port: plcPort });
  await plc.start();
  const plcUrl = `http://localhost:${plcPort}`;
  const host = serveTestHost(sql, {
    overrides: {
      allowPrivateWebhookTargets: true,
      trustedProxies: 1,
      networkPlcUrl: plcUrl,
      networkKeySecret: "a deployment secret for tests",
      ...settings,
    },
  });
  const { baseUrl, ctx } = host;
  return {
    baseUrl,
    plcUrl,
    ctx,
    siteJwt: async (member) =>
      await mintPersonJwt(await ctx.secrets.get("jwt"), { id: member.id, email: `${member.username}@example.test`, role: "member" }),
    post: (path, token, body) =>
      fetch(`${baseUrl}${path}`, {
        method: "POST",
        headers: { ...(token ? { authorization: `Bearer ${token}` } : {}), "content-type": "application/json" },
        body: JSON.stringify(body ?? {}),
      }),
    get: (nsid, params) => fetch(`${baseUrl}/xrpc/${nsid}?${new URLSearchParams(params)}`),
    async close() {
      await host.close();
      await plc.destroy();
    },
  };
}
