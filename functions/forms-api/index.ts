// Deploy entry for the forms function (Supabase Edge Functions or any Deno host).
import { createContext } from "../../shared/context.ts";
import { readConfig } from "../../shared/config.ts";
import { callerEnv, functionRootUrl, handToApp } from "../../shared/http.ts";
import { createFormsApp } from "./app.ts";

const config = readConfig();
const app = createFormsApp(createContext(config));
Deno.serve((request, info) =>
  handToApp(app.fetch, request, functionRootUrl("forms-api", request.url), callerEnv(request, info, config))
);
