// Webhook subscriptions as the API takes and shows them. The secret is taken, never shown.
import { FORM_WEBHOOK_TAG } from "../../../shared/site/config.ts";
import { webhookTargetProblem } from "../../../shared/webhooks/url-guard.ts";
import { isoSeconds } from "./arguments.ts";
import { ArgumentError } from "./arguments.ts";

/** Tags follow one rule, in the API and in the site's declared subscriptions. */
export const TAG_PATTERN = FORM_WEBHOOK_TAG;

export interface WebhookInput {
  url?: string;
  enabled?: boolean;
  secret?: string | null;
  verifySsl?: boolean;
}

/**
 * A PUT body: { url, enabled?, secret?, verify_ssl? }. The url is needed only to create (a client's
 * toggle sends { enabled } alone); what is given must be well formed.
 */
export function webhookInput(body: unknown, creating: boolean, allowPrivate: boolean): WebhookInput {
  if (typeof body !== "object" || body === null || Array.isArray(body)) {
    throw new ArgumentError(
      "the body must be a JSON object { url, enabled?, secret?, verify_ssl? }",
      "body",
      "body",
    );
  }
  const b = body as Record<string, unknown>;
  const out: WebhookInput = {};
  if (b.url !== undefined && b.url !== null) {
    if (typeof b.url !== "string") throw new ArgumentError("url must be text", "url", "body");
    const problem = webhookTargetProblem(b.url, allowPrivate);
    if (problem) throw new ArgumentError(problem, "url", "body");
    out.url = b.url;
  } else if (creating) throw new ArgumentError("url is required", "url", "body");
  if (b.enabled !== undefined && b.enabled !== null) {
    if (typeof b.enabled !== "boolean") {
      throw new ArgumentError("enabled must be true or false", "enabled", "body");
    }
    out.enabled = b.enabled;
  }
  if (b.verify_ssl !== undefined && b.verify_ssl !== null) {
    if (typeof b.verify_ssl !== "boolean") {
      throw new ArgumentError("verify_ssl must be true or false", "verify_ssl", "body");
    }
    out.verifySsl = b.verify_ssl;
  }
  if (b.secret !== undefined) {
    if (b.secret !== null && (typeof b.secret !== "string" || b.secret.length > 512)) {
      throw new ArgumentError("secret must be text of at most 512 characters", "secret", "body");
    }
    out.secret = b.secret === "" ? null : b.secret as string | null;
  }
  return out;
}

export function webhookRecord(row: {
  id: string;
  form: string;
  tag: string;
  url: string;
  enabled: boolean;
  verify_ssl: boolean;
  created_at: Date;
  updated_at: Date;
}) {
  return {
    id: row.id,
    form_id: row.form,
    tag: row.tag,
    url: row.url,
    enabled: row.enabled,
    verify_ssl: row.verify_ssl,
    created_at: isoSeconds(row.created_at),
    updated_at: isoSeconds(row.updated_at),
  };
}
