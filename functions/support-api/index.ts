// Deploy entry for the support desk function (Supabase Edge Functions or any Deno host).
import { createContext } from "../../shared/context.ts";
import { readConfig } from "../../shared/config.ts";
import { callerEnv, functionRootUrl, handToApp } from "../../shared/http.ts";
import { createSupportApp } from "./app.ts";

const config = readConfig();
const app = createSupportApp(createContext(config));
Deno.serve((request, info) =>
  handToApp(app.fetch, request, functionRootUrl("support-api", request.url), callerEnv(request, info, config))
);
