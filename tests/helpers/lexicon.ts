// The protocol's own lexicons (as @atproto/api ships them) judge what the network function answers:
// the real client throws on a 2xx body that breaks its method's output schema, so tests check raw
// answers the same way.
import { lexicons } from "@atproto/api";

/** Throws, naming the method and the first broken field, unless `body` is a valid output of `nsid`. */
export function assertValidOutput(nsid: string, body: unknown): void {
  lexicons.assertValidXrpcOutput(nsid, body);
}

/** Throws unless `record` is a valid record of its collection (`$type` names it). */
export function assertValidRecord(collection: string, record: unknown): void {
  lexicons.assertValidRecord(collection, record);
}

/** Fetches /xrpc/<nsid> on the host and checks a 2xx body against the lexicon; answers status and body. */
export async function xrpc(
  baseUrl: string,
  nsid: string,
  options: { params?: Record<string, string | string[]>; input?: unknown; token?: string; method?: "GET" | "POST" } = {},
): Promise<{ status: number; body: any; headers: Headers }> {
  const url = new URL(`/xrpc/${nsid}`, baseUrl);
  for (const [key, value] of Object.entries(options.params ?? {})) {
    for (const one of Array.isArray(value) ? value : [value]) url.searchParams.append(key, one);
  }
  const method = options.method ?? (options.input === undefined ? "GET" : "POST");
  const headers: Record<string, string> = {};
  if (options.token) headers.authorization = `Bearer ${options.token}`;
  if (options.input !== undefined) headers["content-type"] = "application/json";
  const res = await fetch(url, {
    method,
    headers,
    body: options.input === undefined ? undefined : JSON.stringify(options.input),
  });
  const text = await res.text();
  const body = text && res.headers.get("content-type")?.includes("application/json") ? JSON.parse(text) : text;
  if (res.ok && lexicons.getDef(nsid) && body !== "") assertValidOutput(nsid, body);
  return { status: res.status, body, headers: res.headers };
}
