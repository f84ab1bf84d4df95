// One wire method = one file under api/ that exports `method(nsid, options, handler)`; api/index.ts lists
// them and the dispatcher (xrpc/dispatch.ts) runs the checks every method shares before the handler.
import type { FunctionContext } from "../../../shared/context.ts";
import type { Tx } from "../../../shared/db.ts";
import type { SiteSettings } from "../../../shared/site.ts";

/**
 * none: no token looked at; optional: a viewer when a valid token came; reader: an access token (or the
 * site's own session) is required; refresh: a refresh token is required (refreshSession, deleteSession).
 */
export type MethodAuth = "none" | "optional" | "reader" | "refresh";

export interface Viewer {
  /** the member's profile id */
  id: string;
  did: string;
  handle: string;
  /** app: a protocol session made with an app password; site: the site's own person token */
  via: "app" | "site";
  /** the protocol session (via app) */
  sessionId?: string;
  /** the app password the session was made with (via app) */
  appPasswordId?: string;
}

/** The site as one request sees it. */
export interface NetworkSite {
  settings: SiteSettings;
  /** members' handles are `<name>.<handleDomain>` */
  handleDomain: string;
  /** did:web of the site's public host */
  did: string;
  /** the site's public origin, where apps reach /xrpc */
  origin: string;
}

export interface Call {
  nsid: string;
  /** the query string; a key that repeats gives an array */
  params: Record<string, string | string[]>;
  /** the JSON body of a procedure (undefined for queries and raw-body methods) */
  input: Record<string, unknown> | undefined;
  viewer: Viewer | undefined;
  /** runs fn in a transaction as the viewer (`set local role authenticated` + claims), or as anon */
  asReader<T>(fn: (tx: Tx) => Promise<T>): Promise<T>;
  ctx: FunctionContext;
  site: NetworkSite;
  now: Date;
  request: Request;
  /** the caller's address (per-address limits) */
  clientAddress: string;
}

export interface MethodOptions {
  auth: MethodAuth;
  /** refused with 403 Forbidden while the site does not let other apps sign in (network.apps off) */
  apps: boolean;
  /** the handler reads the body itself (uploadBlob) */
  rawBody?: boolean;
}

export interface Method extends MethodOptions {
  nsid: string;
  handle(call: Call): Promise<unknown>;
}

export function method(nsid: string, options: MethodOptions, handle: (call: Call) => Promise<unknown>): Method {
  return { nsid, ...options, handle };
}
