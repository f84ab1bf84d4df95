// Deploy entry for the storefront-api function (Supabase Edge Functions or any Deno host). The
// pass-through routes reach the other functions over HTTP through the site's public address, where the
// host in front applies the rewrite table (web/rewrites.ts) and so finds each function.
import { createContext } from "../../shared/context.ts";
import { readConfig } from "../../shared/config.ts";
import { callerEnv, functionRootUrl, handToApp } from "../../shared/http.ts";
import { createStorefrontApp } from "./app.ts";
import { forwardOverHttp } from "./routes/pass-through.ts";

const config = readConfig();
const app = createStorefrontApp(createContext(config), { forward: forwardOverHttp(config.publicUrl) });
Deno.serve((request, info) =>
  handToApp(app.fetch, request, functionRootUrl("storefront-api", request.url), callerEnv(request, info, config))
);
