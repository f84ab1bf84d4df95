// The rewrite table: public paths of the site → the function (and path inside it) that answers them.
// The local host applies it; `emitRewrites()` renders it for a production host.
export interface Rewrite {
  /** public path prefix (ends with "/") or exact path; an exact path may have `:name` segments (one each) */
  from: string;
  exact?: boolean;
  fn: string;
  /** the path inside the function that `from` maps to */
  to: string;
}

export const REWRITES: Rewrite[] = [
  { from: "/api/content/", fn: "content", to: "/" },
  { from: "/api/media/", fn: "content", to: "/media/" },
  { from: "/openapi.json", exact: true, fn: "content", to: "/openapi.json" },
  { from: "/api/scheduling/", fn: "scheduling-api", to: "/" },
  { from: "/book/", fn: "scheduling-api", to: "/book/" },
  // the Forms API: {base_url}/api/... (Typeform clients take apiBaseUrl "<site>/api"), the /v1 prefix,
  // the spec's {function_url}/functions/api/..., and the form page /to/<slug> (alias /form/<slug>)
  { from: "/api/forms", exact: true, fn: "forms-api", to: "/forms" },
  { from: "/api/forms/", fn: "forms-api", to: "/forms/" },
  { from: "/api/me", exact: true, fn: "forms-api", to: "/me" },
  { from: "/api/workspaces", exact: true, fn: "forms-api", to: "/workspaces" },
  { from: "/api/workspaces/", fn: "forms-api", to: "/workspaces/" },
  { from: "/api/insights/", fn: "forms-api", to: "/insights/" },
  { from: "/api/themes", exact: true, fn: "forms-api", to: "/themes" },
  { from: "/api/themes/", fn: "forms-api", to: "/themes/" },
  { from: "/api/images", exact: true, fn: "forms-api", to: "/images" },
  { from: "/api/images/", fn: "forms-api", to: "/images/" },
  { from: "/v1/", fn: "forms-api", to: "/" },
  { from: "/functions/api/", fn: "forms-api", to: "/" },
  { from: "/to/", fn: "forms-api", to: "/to/" },
  { from: "/form/", fn: "forms-api", to: "/to/" },
  { from: "/api/events", exact: true, fn: "content", to: "/events" },
  { from: "/api/events/", fn: "content", to: "/events/" },
  { from: "/api", exact: true, fn: "content", to: "/reference" },
  { from: "/api/", exact: true, fn: "content", to: "/reference" },
  { from: "/api/reference/", fn: "content", to: "/reference/" },
  { from: "/pay/local/", fn: "payments", to: "/" },
  // the Store API: {base_url}/api/store/..., the cart handoff read /api/carts/<token>, and
  // /api/<version>/graphql.json for clients that keep only the origin (@shopify/storefront-api-client),
  // /api/<version>/graphql for shopify-buy, which posts there
  { from: "/api/store/", fn: "storefront-api", to: "/" },
  { from: "/api/carts/", fn: "storefront-api", to: "/carts/" },
  { from: "/api/:version/graphql.json", exact: true, fn: "storefront-api", to: "/api/:version/graphql.json" },
  { from: "/api/:version/graphql", exact: true, fn: "storefront-api", to: "/api/:version/graphql" },
  // the store's pages: the cart handoff /cart/c/<token>, the bag /cart (and its script), the checkout's
  // return /app?checkout=success
  { from: "/cart", exact: true, fn: "storefront-api", to: "/cart" },
  { from: "/cart/", fn: "storefront-api", to: "/cart/" },
  { from: "/app", exact: true, fn: "storefront-api", to: "/app" },
  // the support desk: {base_url}/api/desk is the install root a Chatwoot client is given (client API
  // /api/desk/public/api/v1/..., application API /api/desk/api/v1/..., the widget's sdk.js and cable),
  // and the panel page /support
  { from: "/api/desk/", fn: "support-api", to: "/" },
  { from: "/support", exact: true, fn: "support-api", to: "/support" },
  // the protocol server (AT Protocol PDS-compatible): XRPC at the site's root (apps drop any path of the
  // server address), identity by the host asked, the account page, and signed blob addresses
  { from: "/xrpc/", fn: "network", to: "/xrpc/" },
  { from: "/.well-known/atproto-did", exact: true, fn: "network", to: "/.well-known/atproto-did" },
  { from: "/.well-known/did.json", exact: true, fn: "network", to: "/.well-known/did.json" },
  { from: "/account/network", exact: true, fn: "network", to: "/account/network" },
  { from: "/account/network/", fn: "network", to: "/account/network/" },
  { from: "/network/blob/", fn: "network", to: "/blob/" },
  { from: "/network/join", exact: true, fn: "network", to: "/network/join" },
  { from: "/network/leave", exact: true, fn: "network", to: "/network/leave" },
];

/** `:name` segments of an exact rule match one path segment each; answers them, or undefined. */
function matchSegments(pattern: string, pathname: string): Record<string, string> | undefined {
  const want = pattern.split("/");
  const got = pathname.split("/");
  if (want.length !== got.length) return undefined;
  const params: Record<string, string> = {};
  for (let i = 0; i < want.length; i++) {
    if (want[i].startsWith(":") && got[i] !== "") params[want[i]] = got[i];
    else if (want[i] !== got[i]) return undefined;
  }
  return params;
}

/** The function and inner path for a public path, or undefined when no rule matches. */
export function rewrite(pathname: string, table: Rewrite[] = REWRITES): { fn: string; path: string } | undefined {
  for (const rule of table) {
    if (rule.exact && rule.from.includes("/:")) {
      const params = matchSegments(rule.from, pathname);
      if (params) return { fn: rule.fn, path: rule.to.replace(/:\w+/g, (name) => params[name] ?? name) };
      continue;
    }
    if (rule.exact ? pathname === rule.from : pathname.startsWith(rule.from)) {
      return { fn: rule.fn, path: rule.exact ? rule.to : rule.to + pathname.slice(rule.from.length) };
    }
  }
  return undefined;
}

/** The table as rewrites for a production host in front of Supabase functions (Netlify/Vercel style). */
export function emitRewrites(functionsUrl: string, table: Rewrite[] = REWRITES) {
  return table.map((rule) => ({
    source: rule.exact ? rule.from : `${rule.from}:path*`,
    destination: `${functionsUrl}/functions/v1/${rule.fn}${rule.exact ? rule.to : `${rule.to}:path*`}`,
  }));
}
