// One function as its deploy entry (functions/<fn>/index.ts) runs it: its own app over a context of its
// own, with no host in front, answering the addresses Supabase gives it (/functions/v1/<fn>/...). Requests
// go through app.request(), no port.
import { readConfig } from "../../shared/config.ts";
import { createContext, type FunctionContext } from "../../shared/context.ts";
import { createKey, type KeyKind } from "../../shared/keys.ts";
import { functionRootUrl, handToApp } from "../../shared/http.ts";
import { testDatabaseUrl, testSql } from "./db.ts";

const PUBLIC_URL = "https://site.example";

/** The context an index.ts makes from its environment, over the test database. */
export function deployedContext(): FunctionContext {
  const config = { ...readConfig(new Map<string, string>()), databaseUrl: testDatabaseUrl(), publicUrl: PUBLIC_URL };
  return createContext(config, { sql: testSql() });
}

/** A caller of the function at its own address, as index.ts hands requests to the app. */
export function atFunctionAddress(
  fn: string,
  app: { request(request: Request, init?: RequestInit, env?: object): Response | Promise<Response> },
  /** as the index.ts passes it (content's routes by the entry's path) */
  options: { byEntryPath?: boolean } = {},
) {
  return (path: string, init: RequestInit = {}) => {
    const request = new Request(`${PUBLIC_URL}/functions/v1/${fn}${path}`, init);
    return handToApp((r, env) => app.request(r, undefined, env), request, functionRootUrl(fn, request.url), {}, options);
  };
}

export async function freshKey(ctx: FunctionContext, kind: KeyKind): Promise<string> {
  return (await createKey(ctx.sql, { name: `deployed ${kind}`, kind })).key;
}
