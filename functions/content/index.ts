// Deploy entry for the content function (Supabase Edge Functions or any Deno host).
import { createContext } from "../../shared/context.ts";
import { readConfig } from "../../shared/config.ts";
import { callerEnv, stripFunctionPrefix } from "../../shared/http.ts";
import { createContentApp } from "./app.ts";

const config = readConfig();
const app = createContentApp(createContext(config));
Deno.serve((request, info) => app.fetch(stripFunctionPrefix("content", request), callerEnv(request, info, config)));
