// What a webhook subscription of the desk may name.
import { SUPPORT_EVENTS } from "../../../shared/openapi/enums/support.ts";

/** Every event a subscription may name (the first five are sent; the OpenAPI section states the same list). */
export const KNOWN_EVENTS: readonly string[] = SUPPORT_EVENTS;

/** `{ url, subscriptions }` from a body that carries them flat or under `webhook` (Rails' wrapping). */
export function webhookFields(body: Record<string, unknown>): { url?: unknown; subscriptions?: unknown } {
  const nested = body.webhook;
  const source = nested && typeof nested === "object" && !Array.isArray(nested) ? nested as Record<string, unknown> : body;
  return { url: source.url, subscriptions: source.subscriptions };
}

/** The known events among the given ones (in the order given, once each), or a problem. */
export function subscriptionList(value: unknown): string[] | { problem: string } {
  if (!Array.isArray(value) || !value.every((v) => typeof v === "string")) {
    return { problem: "subscriptions must be a list of event names." };
  }
  const known = [...new Set(value.filter((v) => KNOWN_EVENTS.includes(v)))];
  if (!known.length) return { problem: `subscriptions names no known event (${KNOWN_EVENTS.join(", ")}).` };
  return known;
}
