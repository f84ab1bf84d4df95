// Deploy entry for the forms function (Supabase Edge Functions or any Deno host).
import { createContext } from "../../shared/context.ts";
import { readConfig } from "../../shared/config.ts";
import { callerEnv, stripFunctionPrefix } from "../../shared/http.ts";
import { createFormsApp } from "./app.ts";

const config = readConfig();
const app = createFormsApp(createContext(config));
Deno.serve((request, info) =>
  app.fetch(stripFunctionPrefix("forms-api", request), callerEnv(request, info, config))
);
