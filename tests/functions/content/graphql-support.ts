// Helpers of the GraphQL tests: the GraphQL address and the REST address of the test host, and requests
// to each that check the status they expect.
import assert from "node:assert/strict";
import type { TestHost } from "../../helpers/host.ts";
import type { KeyKind } from "../../../shared/keys.ts";
import type { ContentTypeField } from "../../../functions/content/domain/content-types.ts";

export function addresses(host: TestHost) {
  return {
    graphql: `${host.baseUrl}/api/content/content/v1/spaces/${host.space}/environments/master`,
    rest: `${host.baseUrl}/api/content/spaces/${host.space}/environments/master`,
  };
}

/**
 * Several keys of one kind taken in turn: a test sending many requests a second stays under the per-key
 * limit (78 a second), as a client spreading its calls would.
 */
export interface KeyPool {
  next(): string;
}

export async function keyPool(host: TestHost, kind: KeyKind, options: { gated?: boolean } = {}): Promise<KeyPool> {
  const keys = await Promise.all(Array.from({ length: 6 }, () => host.key(kind, options)));
  let turn = 0;
  return { next: () => keys[turn++ % keys.length] };
}

type Key = string | undefined | KeyPool;
const token = (key: Key) => (typeof key === "object" ? key.next() : key);

export interface Answer {
  status: number;
  headers: Headers;
  // deno-lint-ignore no-explicit-any
  body: any;
}

/** POST { query, variables } with the key (none when undefined); the raw answer. */
export async function post(
  url: string,
  key: Key,
  query: string,
  variables?: unknown,
): Promise<Answer> {
  const headers: Record<string, string> = { "content-type": "application/json" };
  if (key) headers.authorization = `Bearer ${token(key)}`;
  const res = await fetch(url, { method: "POST", headers, body: JSON.stringify({ query, variables }) });
  return { status: res.status, headers: res.headers, body: await res.json() };
}

/** A query that must answer 200 without errors; its data. */
// deno-lint-ignore no-explicit-any
export async function data(
  url: string,
  key: Key,
  query: string,
  variables?: unknown,
): Promise<any> {
  const answer = await post(url, key, query, variables);
  assert.equal(answer.status, 200, JSON.stringify(answer.body));
  assert.equal(answer.body.errors, undefined, JSON.stringify(answer.body.errors));
  return answer.body.data;
}

/** The codes of an answer's errors, in order. */
export function codes(answer: Pick<Answer, "body">): string[] {
  return (answer.body.errors ?? []).map((e: { extensions: { contentful: { code: string } } }) =>
    e.extensions.contentful.code
  );
}

/** A REST read that must answer 200. */
// deno-lint-ignore no-explicit-any
export async function restGet(url: string, key: Key): Promise<any> {
  const res = await fetch(url, { headers: { authorization: `Bearer ${token(key)}` } });
  const body = await res.json();
  assert.equal(res.status, 200, `${url}: ${JSON.stringify(body)}`);
  return body;
}

/** A content type field as the site import stores it. */
export function field(
  id: string,
  type: ContentTypeField["type"],
  extra: Partial<ContentTypeField> = {},
): ContentTypeField {
  return {
    id,
    name: id,
    type,
    localized: false,
    required: false,
    disabled: false,
    omitted: false,
    validations: [],
    ...extra,
  };
}
