// The local provider: the embedded default's checkout, with no third party. A session is a row of
// payment_sessions; its page (served by the site host at /pay/local/<id>) shows the items and a Pay
// button; paying marks the row complete, posts a Stripe-shaped `checkout.session.completed` event signed
// with Stripe's scheme to the session's notifyUrl, and sends the buyer to successUrl. A session visited
// after it expired posts `checkout.session.expired` once instead.
import { Hono } from "hono";
import { HTTPException } from "hono/http-exception";
import type { Clock } from "../clock.ts";
import type { Sql } from "../db.ts";
import { escapeHtml } from "../html.ts";
import { randomBase62 } from "../ids.ts";
import { isEmailAddress } from "../email.ts";
import { storableText } from "../input-text.ts";
import type { Secrets } from "../secrets.ts";
import { answerEntryRefusal } from "../http.ts";
import { formatMinorUnits } from "./money.ts";
import { checkoutSessionState, parseEvent, signPayload, verifySignature } from "./signature.ts";
import {
  type CheckoutItem,
  type CheckoutSession,
  type CheckoutSessionInput,
  type CheckoutSessionState,
  PaymentError,
  type PaymentEvent,
  type PaymentProvider,
} from "./types.ts";

/** the secret the local provider signs its events with (kept in site_secrets, like every signing secret) */
export const LOCAL_WEBHOOK_SECRET = "payments-local-webhook";
/** Stripe's default session lifetime */
const DEFAULT_LIFETIME_MS = 24 * 3600 * 1000;

export interface LocalDeps {
  sql: Sql;
  secrets: Secrets;
  clock: Clock;
  /** the site's public origin: session pages live at {publicUrl}/pay/local/<id> */
  publicUrl: string;
  fetch?: typeof fetch;
}

interface SessionRow {
  id: string;
  reference: string;
  currency: string;
  items: CheckoutItem[];
  amount_total: number;
  customer_email: string | null;
  shipping_countries: string[];
  metadata: Record<string, string>;
  success_url: string;
  cancel_url: string;
  notify_url: string;
  status: "open" | "complete" | "expired";
  event: Record<string, unknown> | null;
  notify_status: number | null;
  notify_error: string | null;
  created_at: Date;
  expires_at: Date;
  completed_at: Date | null;
}

export function localProvider(deps: LocalDeps): PaymentProvider {
  return {
    name: "local",
    async createCheckoutSession(input: CheckoutSessionInput): Promise<CheckoutSession> {
      validateInput(input);
      const id = `cs_local_${randomBase62(24)}`;
      const expiresAt = input.expiresAt ?? new Date(deps.clock.now().getTime() + DEFAULT_LIFETIME_MS);
      const total = input.items.reduce((sum, item) => sum + item.unitAmount * item.quantity, 0);
      await deps.sql`
        insert into public.payment_sessions (id, reference, currency, items, amount_total, customer_email,
          shipping_countries, metadata, success_url, cancel_url, notify_url, created_at, expires_at)
        values (${id}, ${input.reference}, ${input.currency.toUpperCase()}, ${
        deps.sql.json(input.items as never)
      },
          ${total}, ${input.customerEmail ?? null}, ${input.shippingCountries ?? []},
          ${deps.sql.json({ ...input.metadata, reference: input.reference })}, ${input.successUrl},
          ${input.cancelUrl}, ${input.notifyUrl}, ${deps.clock.now()}, ${expiresAt})`;
      return {
        id,
        url: `${deps.publicUrl}/pay/local/${id}`,
        provider: "local",
        expiresAt: expiresAt.toISOString(),
      };
    },
    async retrieveCheckoutSession(id: string): Promise<CheckoutSessionState | undefined> {
      const [row] = await deps.sql<SessionRow[]>`select * from public.payment_sessions where id = ${id}`;
      if (!row) return undefined;
      // a paid session is what its completed event carried (with the email given at payment)
      const object = row.event && (row.event as { type?: string }).type === "checkout.session.completed"
        ? (row.event as { data: { object: unknown } }).data.object
        : sessionObject(row, { email: null, country: null });
      return checkoutSessionState(object);
    },
    async verifyEvent(payload: string, signatureHeader: string | null): Promise<PaymentEvent> {
      await verifySignature(
        await deps.secrets.get(LOCAL_WEBHOOK_SECRET),
        payload,
        signatureHeader,
        deps.clock.now(),
      );
      return parseEvent(payload);
    },
  };
}

/** Stripe refuses these too; the local provider must not accept what the real one would not. */
function validateInput(input: CheckoutSessionInput): void {
  if (!/^[A-Za-z]{3}$/.test(input.currency)) {
    throw new PaymentError("currency must be an ISO 4217 code.", 400);
  }
  if (input.items.length === 0) throw new PaymentError("A checkout session needs at least one item.", 400);
  for (const item of input.items) {
    if (!Number.isInteger(item.unitAmount) || item.unitAmount < 0) {
      throw new PaymentError("unitAmount must be a non-negative integer in minor units.", 400);
    }
    if (!Number.isInteger(item.quantity) || item.quantity < 1) {
      throw new PaymentError("quantity must be at least 1.", 400);
    }
  }
  for (const url of [input.successUrl, input.cancelUrl, input.notifyUrl]) {
    if (!/^https?:\/\//.test(url)) throw new PaymentError(`Not an absolute http(s) address: ${url}`, 400);
  }
}

/** The Stripe checkout.session object for a row (what the event carries). */
function sessionObject(row: SessionRow, fields: { email: string | null; country: string | null }) {
  return {
    id: row.id,
    object: "checkout.session",
    mode: "payment",
    status: row.status,
    payment_status: row.status === "complete" ? "paid" : "unpaid",
    client_reference_id: row.reference,
    amount_subtotal: row.amount_total,
    amount_total: row.amount_total,
    currency: row.currency.toLowerCase(),
    customer_email: row.customer_email,
    customer_details: fields.email || fields.country
      ? { email: fields.email, address: fields.country ? { country: fields.country } : null }
      : null,
    shipping_details: fields.country ? { address: { country: fields.country } } : null,
    metadata: row.metadata,
    success_url: row.success_url,
    cancel_url: row.cancel_url,
    expires_at: Math.floor(row.expires_at.getTime() / 1000),
    created: Math.floor(row.created_at.getTime() / 1000),
    livemode: false,
  };
}

/** The local checkout pages. The host mounts them at /pay/local/. */
export function localCheckoutApp(deps: LocalDeps): Hono {
  const app = new Hono({ strict: false });
  app.use("*", answerEntryRefusal((method) => new HTTPException(405, { message: `The method ${method} is not allowed.` })));
  const doFetch = deps.fetch ?? fetch;

  const load = async (id: string) => {
    const [row] = await deps.sql<SessionRow[]>`select * from public.payment_sessions where id = ${id}`;
    return row;
  };

  /** Signs and posts the stored event; records the answer. Delivery failures are shown, not thrown. */
  const deliver = async (row: SessionRow, event: Record<string, unknown>) => {
    const payload = JSON.stringify(event);
    const signature = await signPayload(
      await deps.secrets.get(LOCAL_WEBHOOK_SECRET),
      payload,
      Math.floor(deps.clock.now().getTime() / 1000),
    );
    let status: number | null = null;
    let error: string | null = null;
    try {
      const response = await doFetch(row.notify_url, {
        method: "POST",
        headers: { "content-type": "application/json", "stripe-signature": signature },
        body: payload,
        signal: AbortSignal.timeout(10_000),
      });
      status = response.status;
      await response.body?.cancel();
      if (!response.ok) error = `HTTP ${response.status}`;
    } catch (e) {
      error = (e as Error).message;
    }
    await deps.sql`update public.payment_sessions set notify_status = ${status}, notify_error = ${error}
                   where id = ${row.id}`;
    return error;
  };

  /** Marks an open session past its time expired and tells the caller, once. */
  const expireIfDue = async (row: SessionRow): Promise<SessionRow> => {
    if (row.status !== "open" || row.expires_at.getTime() > deps.clock.now().getTime()) return row;
    const [expired] = await deps.sql<SessionRow[]>`
      update public.payment_sessions set status = 'expired' where id = ${row.id} and status = 'open' returning *`;
    if (!expired) return (await load(row.id))!;
    const event = eventFor(expired, "checkout.session.expired", { email: null, country: null });
    await deps.sql`update public.payment_sessions set event = ${
      deps.sql.json(event as never)
    } where id = ${row.id}`;
    await deliver(expired, event);
    return expired;
  };

  const eventFor = (
    row: SessionRow,
    type: string,
    fields: { email: string | null; country: string | null },
  ) => ({
    id: `evt_local_${randomBase62(24)}`,
    object: "event",
    type,
    created: Math.floor(deps.clock.now().getTime() / 1000),
    livemode: false,
    data: { object: sessionObject(row, fields) },
  });

  app.get("/:id", async (c) => {
    const found = await load(c.req.param("id"));
    if (!found) return c.html(page("Checkout not found", `<p>This checkout does not exist.</p>`), 404);
    const row = await expireIfDue(found);
    return c.html(checkoutPage(row, c.req.query("error")));
  });

  app.post("/:id/pay", async (c) => {
    const found = await load(c.req.param("id"));
    if (!found) return c.html(page("Checkout not found", `<p>This checkout does not exist.</p>`), 404);
    const row = await expireIfDue(found);
    if (row.status === "expired") return c.redirect(`/pay/local/${row.id}`, 303);
    const form = await c.req.parseBody().catch(() => ({} as Record<string, unknown>));
    const email = typeof form.email === "string" && form.email.trim()
      ? form.email.trim()
      : row.customer_email;
    // as Stripe's page does, an address that is no address is asked for again (nothing is paid)
    if (email !== null && !isPayerEmail(email)) {
      return c.redirect(
        `/pay/local/${row.id}?error=${encodeURIComponent("enter a valid email address")}`,
        303,
      );
    }
    const country = typeof form.country === "string" && row.shipping_countries.includes(form.country)
      ? form.country
      : row.shipping_countries[0] ?? null;
    // paying twice (a retry after a failed delivery) sends the same event again, never a second one
    const [paid] = await deps.sql<SessionRow[]>`
      update public.payment_sessions set status = 'complete', completed_at = ${deps.clock.now()}
      where id = ${row.id} and status = 'open' returning *`;
    let event = row.event;
    if (paid) {
      event = eventFor(paid, "checkout.session.completed", { email, country });
      await deps.sql`update public.payment_sessions set event = ${
        deps.sql.json(event as never)
      } where id = ${row.id}`;
    }
    if (!event) return c.redirect(`/pay/local/${row.id}`, 303);
    const error = await deliver(paid ?? row, event);
    if (error) return c.redirect(`/pay/local/${row.id}?error=${encodeURIComponent(error)}`, 303);
    // Stripe fills the {CHECKOUT_SESSION_ID} template of a success URL; so does the local provider
    return c.redirect(row.success_url.replaceAll("{CHECKOUT_SESSION_ID}", row.id), 303);
  });

  app.post("/:id/cancel", async (c) => {
    const row = await load(c.req.param("id"));
    if (!row) return c.html(page("Checkout not found", `<p>This checkout does not exist.</p>`), 404);
    return c.redirect(row.cancel_url, 303);
  });

  return app;
}

/** An address a payer can give: email-shaped (shared/email.ts), text Postgres can hold. */
function isPayerEmail(email: string): boolean {
  return isEmailAddress(email) && storableText(email);
}

function checkoutPage(row: SessionRow, error?: string): string {
  const money = (minor: number) => `${formatMinorUnits(minor, row.currency)} ${row.currency}`;
  const items = row.items.map((item) => `
    <tr><td>${escapeHtml(item.name)}${
    item.description ? `<br><small>${escapeHtml(item.description)}</small>` : ""
  }</td>
        <td class="n">${item.quantity}</td><td class="n">${
    escapeHtml(money(item.unitAmount * item.quantity))
  }</td></tr>`)
    .join("");
  if (row.status === "expired") {
    return page(
      "Checkout expired",
      `<p>This checkout has expired.</p><p><a href="${escapeHtml(row.cancel_url)}">Back</a></p>`,
    );
  }
  const countries = row.shipping_countries.length
    ? `<label>Ship to <select name="country">${
      row.shipping_countries.map((c) => `<option>${escapeHtml(c)}</option>`).join("")
    }</select></label>`
    : "";
  const done = row.status === "complete";
  return page(
    "Checkout",
    `<p class="note">Local test checkout: no money moves.</p>
    <table><tbody>${items}</tbody>
      <tfoot><tr><th>Total</th><td></td><td class="n" data-total>${
      escapeHtml(money(Number(row.amount_total)))
    }</td></tr></tfoot></table>
    ${
      error
        ? `<p role="alert">The shop did not confirm the payment (${escapeHtml(error)}). Try again.</p>`
        : ""
    }
    <form method="post" action="/pay/local/${escapeHtml(row.id)}/pay">
      <label>Email <input name="email" type="email" value="${escapeHtml(row.customer_email ?? "")}"></label>
      ${countries}
      <button type="submit">${done ? "Confirm again" : "Pay"} ${
      escapeHtml(money(Number(row.amount_total)))
    }</button>
    </form>
    <form method="post" action="/pay/local/${
      escapeHtml(row.id)
    }/cancel"><button type="submit">Cancel</button></form>`,
  );
}

function page(title: string, body: string): string {
  return `<!doctype html><html lang="en"><head><meta charset="utf-8"><meta name="robots" content="noindex">
<meta name="viewport" content="width=device-width,initial-scale=1"><title>${escapeHtml(title)}</title>
<style>body{font:16px/1.5 system-ui,sans-serif;max-width:32rem;margin:2rem auto;padding:0 1rem}
table{width:100%;border-collapse:collapse}td,th{padding:.3rem 0;text-align:left}.n{text-align:right}
label{display:block;margin:.5rem 0}button{margin-top:.5rem;padding:.5rem 1rem}.note{color:#666}</style></head>
<body><h1>${escapeHtml(title)}</h1>${body}</body></html>`;
}
