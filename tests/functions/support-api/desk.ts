// The support desk as tests reach it: the running host, a support key made by a person on the desk, and
// plain fetch calls in the desk's two APIs (there is no npm client of Chatwoot's client API; the
// application API is also driven through @figuro/chatwoot-sdk in tests/clients).
import { createKey, type KeyKind } from "../../../shared/keys.ts";
import { ensurePerson, mintPersonJwt, type Person, type Role } from "../../../shared/people.ts";
import { testHost, type TestHost } from "../../helpers/host.ts";

export interface Desk {
  host: TestHost;
  /** the install root a Chatwoot client is given */
  root: string;
  /** the client API's inbox root (Chatwoot's computed path) */
  client: string;
  /** the application API's account root */
  app: string;
  agent: Person & { agentId: number; key: string };
  /** a key of that kind made by a person of that role */
  keyBy(role: Role, kind?: KeyKind): Promise<{ key: string; person: Person }>;
  jwt(person: Person): Promise<string>;
}

let made: Promise<Desk> | undefined;

export function desk(): Promise<Desk> {
  made ??= (async () => {
    const host = await testHost();
    const root = `${host.baseUrl}/api/desk`;
    const keyBy = async (role: Role, kind: KeyKind = "support") => {
      const person = await ensurePerson(host.ctx.sql, `${role}-${crypto.randomUUID().slice(0, 8)}@desk.test`, role);
      const { key } = await createKey(host.ctx.sql, { name: `desk ${role}`, kind, createdBy: person.id });
      return { key, person };
    };
    const { key, person } = await keyBy("support");
    const [{ id }] = await host.ctx.sql<{ id: number }[]>`select id from public.support_agents where person_id = ${person.id}`;
    return {
      host,
      root,
      client: `${root}/public/api/v1/inboxes/${host.space}`,
      app: `${root}/api/v1/accounts/1`,
      agent: { ...person, agentId: id, key },
      keyBy,
      jwt: async (p) => await mintPersonJwt(await host.ctx.secrets.get("jwt"), p),
    };
  })();
  return made;
}

/**
 * A fresh caller address (the test host trusts one proxy), so per-address guards stay per test. Random:
 * each test file counts in its own isolate against the one database of the run.
 */
export function freshAddress(): string {
  const [a, b, c] = crypto.getRandomValues(new Uint8Array(3));
  return `10.${a}.${b}.${c}`;
}

export interface Answer {
  status: number;
  body: any;
  headers: Headers;
}

export async function call(
  method: string,
  url: string,
  options: { body?: unknown; key?: string; bearer?: string; headers?: Record<string, string>; from?: string } = {},
): Promise<Answer> {
  const headers: Record<string, string> = { ...options.headers };
  if (options.body !== undefined) headers["content-type"] = "application/json";
  if (options.key) headers["api_access_token"] = options.key;
  if (options.bearer) headers["authorization"] = `Bearer ${options.bearer}`;
  headers["x-forwarded-for"] = options.from ?? freshAddress();
  const response = await fetch(url, {
    method,
    headers,
    body: options.body === undefined ? undefined : typeof options.body === "string" ? options.body : JSON.stringify(options.body),
  });
  const text = await response.text();
  let body: unknown = text;
  try {
    body = text ? JSON.parse(text) : null;
  } catch { /* not JSON: kept as text */ }
  return { status: response.status, body, headers: response.headers };
}

/** A new guest: its token (source_id) and id. */
export async function guest(d: Desk, body: unknown = {}): Promise<{ sourceId: string; id: number; base: string }> {
  const answer = await call("POST", `${d.client}/contacts`, { body });
  if (answer.status !== 200) throw new Error(`guest: ${answer.status} ${JSON.stringify(answer.body)}`);
  return { sourceId: answer.body.source_id, id: answer.body.id, base: `${d.client}/contacts/${answer.body.source_id}` };
}

/** A guest with a new conversation. */
export async function thread(d: Desk): Promise<{ sourceId: string; contactId: number; id: number; url: string; pubsub: string }> {
  const g = await guest(d);
  const answer = await call("POST", `${g.base}/conversations`, { body: {} });
  if (answer.status !== 200) throw new Error(`thread: ${answer.status} ${JSON.stringify(answer.body)}`);
  return {
    sourceId: g.sourceId,
    contactId: g.id,
    id: answer.body.id,
    url: `${g.base}/conversations/${answer.body.id}`,
    pubsub: answer.body.pubsub_token,
  };
}

export const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

/**
 * Runs the delivery route until nothing due is left (other tests' dead subscribers back off as they
 * fail), then waits for the desk's rows another test file's pass claimed and is still sending: test files
 * run side by side on one database, and a row of this test's that such a pass took is out of this pass's
 * reach until that pass has sent it.
 */
export async function deliverAll(d: Desk, serviceKey: string): Promise<void> {
  for (let pass = 0; pass < 100; pass++) {
    const answer = await call("POST", `${d.root}/webhooks/deliver`, { bearer: serviceKey });
    if (answer.status !== 200) throw new Error(`deliver: ${answer.status}`);
    if (answer.body.claimed === 0) break;
  }
  for (let wait = 0; wait < 100; wait++) {
    const [{ sending }] = await d.host.ctx.sql<{ sending: boolean }[]>`
      select exists (select 1 from public.webhook_outbox
                     where api = 'support' and status = 'pending' and claimed_until > now()) as sending`;
    if (!sending) return;
    await sleep(50);
  }
}
