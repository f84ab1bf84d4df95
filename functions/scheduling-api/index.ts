// Deploy entry for the scheduling function (Supabase Edge Functions or any Deno host).
import { createContext } from "../../shared/context.ts";
import { readConfig } from "../../shared/config.ts";
import { callerEnv, stripFunctionPrefix } from "../../shared/http.ts";
import { createSchedulingApp } from "./app.ts";

const config = readConfig();
const app = createSchedulingApp(createContext(config));
Deno.serve((request, info) =>
  app.fetch(stripFunctionPrefix("scheduling-api", request), callerEnv(request, info, config))
);
