// Deploy entry for the forms function (Supabase Edge Functions or any Deno host).
import { createContext } from "../../shared/context.ts";
import { readConfig } from "../../shared/config.ts";
import { stripFunctionPrefix } from "../../shared/http.ts";
import { createFormsApp } from "./app.ts";

const app = createFormsApp(createContext(readConfig()));
Deno.serve((request, info) =>
  app.fetch(stripFunctionPrefix("forms-api", request), { remoteAddr: info.remoteAddr })
);
