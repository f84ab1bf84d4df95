// app.bsky.actor.getPreferences: the app's own settings, exactly as it stored them.
import { preferencesOf } from "../../../../store/reader/prefs.ts";
import { method } from "../../../../xrpc/method.ts";

export default method("app.bsky.actor.getPreferences", { auth: "reader", apps: true }, (call) =>
  call.asReader(async (tx) => ({ preferences: await preferencesOf(tx, call.viewer!.id) })));
