// Deploy entry for the network function (Supabase Edge Functions or any Deno host).
import { createContext } from "../../shared/context.ts";
import { readConfig } from "../../shared/config.ts";
import { callerEnv, functionRootUrl, handToApp } from "../../shared/http.ts";
import { createNetworkApp } from "./app.ts";

const config = readConfig();
const app = createNetworkApp(createContext(config));
Deno.serve((request, info) =>
  handToApp(app.fetch, request, functionRootUrl("network", request.url), callerEnv(request, info, config))
);
