// Deploy entry for the scheduling function (Supabase Edge Functions or any Deno host).
import { createContext } from "../../shared/context.ts";
import { readConfig } from "../../shared/config.ts";
import { stripFunctionPrefix } from "../../shared/http.ts";
import { createSchedulingApp } from "./app.ts";

const app = createSchedulingApp(createContext(readConfig()));
Deno.serve((request, info) =>
  app.fetch(stripFunctionPrefix("scheduling-api", request), { remoteAddr: info.remoteAddr })
);
