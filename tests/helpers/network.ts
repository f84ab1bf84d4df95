// Members of the site's community for protocol tests: a person with a username and an app password, and
// an AtpAgent (the real client) signed in as them against the running host.
import { AtpAgent } from "@atproto/api";
import type { Sql } from "../../shared/db.ts";
import { ensurePerson } from "../../shared/people.ts";
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
