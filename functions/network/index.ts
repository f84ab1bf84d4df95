// Deploy entry for the network function (Supabase Edge Functions or any Deno host).
import { createContext } from "../../shared/context.ts";
import { readConfig } from "../../shared/config.ts";
import { callerEnv, functionRootUrl, handToApp } from "../../shared/http.ts";
import { createNetworkApp } from "./app.ts";
import { projectorLoop } from "./federation/projector.ts";

const config = readConfig();
const ctx = createContext(config);
const app = createNetworkApp(ctx);
// changes made outside the API (the admin, SQL) of joined members become commits; where the runtime
// sleeps between requests, the database's scheduler calls POST /internal/project instead
projectorLoop(ctx).start();
Deno.serve((request, info) =>
  handToApp(app.fetch, request, functionRootUrl("network", request.url), callerEnv(request, info, config))
);
