// Deploy entry for the content function (Supabase Edge Functions or any Deno host).
import { createContext } from "../../shared/context.ts";
import { readConfig } from "../../shared/config.ts";
import { callerEnv, functionRootUrl, handToApp } from "../../shared/http.ts";
import { createContentApp } from "./app.ts";

const config = readConfig();
const app = createContentApp(createContext(config));
// the app routes by the path the entry hands it, so GETs go on as they came (see handToApp)
Deno.serve((request, info) =>
  handToApp(app.fetch, request, functionRootUrl("content", request.url), callerEnv(request, info, config), {
    byEntryPath: true,
  })
);
