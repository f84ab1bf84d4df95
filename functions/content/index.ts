// Deploy entry for the content function (Supabase Edge Functions or any Deno host).
import { createContext } from "../../shared/context.ts";
import { readConfig } from "../../shared/config.ts";
import { stripFunctionPrefix } from "../../shared/http.ts";
import { createContentApp } from "./app.ts";

const app = createContentApp(createContext(readConfig()));
Deno.serve((request, info) => app.fetch(stripFunctionPrefix("content", request), { remoteAddr: info.remoteAddr }));
