// Deploy entry for the scheduling function (Supabase Edge Functions or any Deno host).
import { createContext } from "../../shared/context.ts";
import { readConfig } from "../../shared/config.ts";
import { callerEnv, functionRootUrl, handToApp } from "../../shared/http.ts";
import { createSchedulingApp } from "./app.ts";

const config = readConfig();
const app = createSchedulingApp(createContext(config));
Deno.serve((request, info) =>
  handToApp(app.fetch, request, functionRootUrl("scheduling-api", request.url), callerEnv(request, info, config))
);
