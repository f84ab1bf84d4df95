// app.bsky.actor.putPreferences: replaces the app's settings, kept verbatim; each item names its $type
// in app.bsky.* (as the reference server demands).
import { storePreferences } from "../../../../store/reader/prefs.ts";
import { invalidRequest } from "../../../../xrpc/errors.ts";
import { method } from "../../../../xrpc/method.ts";

export default method("app.bsky.actor.putPreferences", { auth: "reader", apps: true }, async (call) => {
  const preferences = call.input?.preferences;
  if (!Array.isArray(preferences)) throw invalidRequest('Input must have the property "preferences"');
  for (const item of preferences) {
    const type = (item as { $type?: unknown })?.$type;
    if (typeof item !== "object" || item === null || typeof type !== "string") {
      throw invalidRequest("Preferences must each be an object with a $type");
    }
    if (!type.startsWith("app.bsky.")) throw invalidRequest(`Some preferences are not in the app.bsky namespace: ${type}`);
  }
  if (JSON.stringify(preferences).length > 100_000) throw invalidRequest("Preferences are limited to 100 kB");
  await call.asReader((tx) => storePreferences(tx, call.viewer!.id, preferences));
  return undefined;
});
