// The store's pages, served by the storefront-api function at the site's /cart and /app (web/rewrites.ts):
//
//   /cart/c/<token>      the cart handoff (spec: Cart handoff): no site chrome, never prerendered (built
//                        per request, no-store), noindex. It reads the cart, puts its lines in the bag,
//                        sets the shipping country, waits for the session, then either starts the bag's
//                        checkout (a signed-in visitor, or a guest when the read's guestMayBuy says so)
//                        or opens the bag with the sign-in (intent buy). A cart without lines opens the
//                        (empty) bag; an address that is no cart's token is a 404 with the expired texts.
//   /cart                the site's bag, with the sign-in panel when ?intent=buy
//   /cart/bag.js         the bag and session script (web/pages/cart/bag.js, a static file of the deploy)
//   /app?checkout=...    the checkout's return (?checkout=success): thanks, and the bag emptied
//
// Texts come from one table keyed like the site's (cart.handoff.title ...), in the visitor's language
// when the table has it, else English; the page's <html lang> is the language of the texts shown.
import type { FunctionContext } from "../../../shared/context.ts";
import { escapeHtml, scriptJson } from "../../../shared/html.ts";
import { moduleOn, readSiteSettings } from "../../../shared/site.ts";
import { shopOf } from "../domain/shop.ts";
import { isCartToken } from "../domain/input.ts";

/** The files the pages read, as paths from the project root (the deploy lists each under static_files). */
export const STATIC_FILES = ["web/pages/cart/bag.js"];

let bagScript: Promise<string> | undefined;
/** The bag script, read once. */
function readBagScript(): Promise<string> {
  bagScript ??= Deno.readTextFile(new URL(`../../../${STATIC_FILES[0]}`, import.meta.url));
  bagScript.catch(() => (bagScript = undefined));
  return bagScript;
}

type Texts = Record<string, string>;

export const CART_TEXTS: Record<string, Texts> = {
  en: {
    "cart.handoff.title": "Taking you to checkout",
    "cart.handoff.lead": "Your cart is in your bag. One moment while we open the checkout.",
    "cart.handoff.signin-title": "Sign in to buy",
    "cart.handoff.signin-lead":
      "Without an account only printed books and downloads can be bought. Sign in and we take you on to checkout.",
    "cart.handoff.open-bag": "Open the bag",
    "cart.handoff.expired-title": "This cart has expired",
    "cart.handoff.expired-lead": "The link is older than thirty days or the cart was bought already.",
    "cart.handoff.to-store": "Go to the store",
    "cart.handoff.failed-title": "The checkout did not open",
    "cart.handoff.failed-lead": "Your items are in your bag. Open it and try again.",
    "cart.bag.title": "Your bag",
    "cart.bag.empty": "Your bag is empty.",
    "cart.bag.total": "Total",
    "cart.bag.country": "Ship to",
    "cart.bag.checkout": "Checkout",
    "cart.bag.remove": "Remove",
    "cart.bag.email": "Email",
    "cart.bag.send-link": "Send me a sign-in link",
    "cart.bag.link-sent": "Check your inbox: the link signs you in and continues to checkout.",
    "cart.bag.signed-in": "Signed in as",
    "cart.app.success-title": "Thank you",
    "cart.app.success-lead": "Your order is confirmed. A receipt is on its way to your inbox.",
  },
  de: {
    "cart.handoff.title": "Weiter zur Kasse",
    "cart.handoff.lead": "Dein Warenkorb liegt in deiner Tasche. Einen Moment, die Kasse öffnet sich.",
    "cart.handoff.signin-title": "Zum Kaufen anmelden",
    "cart.handoff.signin-lead":
      "Ohne Konto gibt es nur gedruckte Bücher und Downloads. Melde dich an, dann geht es weiter zur Kasse.",
    "cart.handoff.open-bag": "Tasche öffnen",
    "cart.handoff.expired-title": "Dieser Warenkorb ist abgelaufen",
    "cart.handoff.expired-lead":
      "Der Link ist älter als dreißig Tage, oder der Warenkorb wurde schon gekauft.",
    "cart.handoff.to-store": "Zum Shop",
    "cart.handoff.failed-title": "Die Kasse hat sich nicht geöffnet",
    "cart.handoff.failed-lead":
      "Deine Artikel liegen in deiner Tasche. Öffne sie und versuche es noch einmal.",
  },
};

/** The texts in the visitor's language where the table has it, and that language (the page's lang). */
function textsFor(request: Request, defaultLanguage: string): { texts: Texts; language: string } {
  const wanted = (request.headers.get("accept-language") ?? defaultLanguage).split(",")
    .map((part) => part.trim().split(";")[0].split("-")[0].toLowerCase());
  const language = [...wanted, defaultLanguage].find((l) => CART_TEXTS[l]) ?? "en";
  return { texts: { ...CART_TEXTS.en, ...CART_TEXTS[language] }, language };
}

const HEADERS = {
  "content-type": "text/html; charset=utf-8",
  // the pages hold a visitor's cart: built per request, never stored or indexed
  "cache-control": "no-store",
  "x-robots-tag": "noindex",
};

function page(title: string, language: string, body: string, data: unknown, script: string): string {
  return `<!doctype html>
<html lang="${escapeHtml(language)}"><head><meta charset="utf-8">
<meta name="viewport" content="width=device-width,initial-scale=1">
<meta name="robots" content="noindex">
<title>${escapeHtml(title)}</title>
<style>
body{font:16px/1.5 system-ui,sans-serif;margin:0;display:grid;min-height:100vh;place-items:center;background:#fafafa;color:#222}
main{max-width:34rem;padding:2rem}h1{font-size:1.5rem;margin:0 0 .5rem}
table{width:100%;border-collapse:collapse;margin:1rem 0}td,th{padding:.4rem 0;text-align:left}.n{text-align:right}
button,.button{display:inline-block;padding:.55rem 1.1rem;border:0;border-radius:.4rem;background:#222;color:#fff;text-decoration:none;font:inherit;cursor:pointer}
[hidden]{display:none!important}input,select{font:inherit;padding:.3rem}
</style></head>
<body><main>${body}</main>
<script id="data" type="application/json">${scriptJson(data)}</script>
<script src="/cart/bag.js"></script>
<script type="module">${script}</script>
</body></html>`;
}

/** The handoff page; `token` null: the address names no cart at all (the expired state at once). */
function handoffPage(token: string | null, texts: Texts, language: string, shipsTo: string[]): string {
  const t = (key: string) => escapeHtml(texts[`cart.handoff.${key}`]);
  // an address that names no cart is expired at once; a cart's state is known once its read answers
  const [state, title, lead] = token
    ? ["loading", "title", "lead"]
    : ["expired", "expired-title", "expired-lead"];
  const body = `
<section data-state="${state}" aria-live="polite">
  <h1 data-text="title">${t(title)}</h1>
  <p data-text="lead">${t(lead)}</p>
  <p><a class="button" data-open-bag href="/cart?intent=buy" hidden>${t("open-bag")}</a>
     <a class="button" data-to-store href="/"${token ? " hidden" : ""}>${t("to-store")}</a></p>
</section>`;
  const script = `
const data = JSON.parse(document.getElementById("data").textContent);
const texts = data.texts;
const section = document.querySelector("section");
// state: the section's data-state; title, lead: text keys; link: which way on is offered (bag, store)
const show = (state, title, lead, link) => {
  section.dataset.state = state;
  section.querySelector("[data-text=title]").textContent = texts[title];
  section.querySelector("[data-text=lead]").textContent = texts[lead];
  section.querySelector("[data-open-bag]").hidden = link !== "bag";
  section.querySelector("[data-to-store]").hidden = link !== "store";
};
const bag = window.sitewireBag;
try {
  const response = data.token
    ? await fetch("/api/store/carts/" + encodeURIComponent(data.token), { cache: "no-store" })
    : null;
  const cart = response && response.ok ? await response.json() : null;
  if (!response || response.status === 404) {
    show("expired", "cart.handoff.expired-title", "cart.handoff.expired-lead", "store");
  } else if (!cart) {
    throw new Error("HTTP " + response.status);
  } else if (cart.lines.length === 0) {
    // nothing to check out: the bag, empty like the cart, never a checkout that could only fail
    bag.clear();
    section.querySelector("[data-open-bag]").href = "/cart";
    show("bag", "cart.bag.title", "cart.bag.empty", "bag");
    location.assign("/cart");
  } else {
    bag.clear();
    for (const line of cart.lines) bag.add(line);
    bag.setCart(data.token);
    const country = cart.buyerIdentity && cart.buyerIdentity.countryCode;
    if (country && data.shipsTo.includes(country)) bag.setCountry(country);
    const session = await window.sitewireSession.ready;
    // who may buy is the store's decision (the handoff read's guestMayBuy), never decided here
    const mayBuy = Boolean(session) || cart.guestMayBuy === true;
    if (!mayBuy) {
      show("signin", "cart.handoff.signin-title", "cart.handoff.signin-lead", "bag");
      location.assign("/cart?intent=buy");
    } else {
      show("checkout", "cart.handoff.title", "cart.handoff.lead");
      const outcome = await bag.checkout();
      if (outcome.signIn) {
        show("signin", "cart.handoff.signin-title", "cart.handoff.signin-lead", "bag");
        location.assign("/cart?intent=buy");
      }
    }
  }
} catch (error) {
  console.error(error);
  show("failed", "cart.handoff.failed-title", "cart.handoff.failed-lead", "bag");
}`;
  return page(texts["cart.handoff.title"], language, body, { token, texts, shipsTo }, script);
}

function bagPage(texts: Texts, language: string, shipsTo: string[]): string {
  const t = (key: string) => escapeHtml(texts[key]);
  const body = `
<h1>${t("cart.bag.title")}</h1>
<p data-empty hidden>${t("cart.bag.empty")}</p>
<table data-lines hidden><tbody></tbody><tfoot><tr><th>${
    t("cart.bag.total")
  }</th><td></td><td class="n" data-total></td></tr></tfoot></table>
<p data-country-row hidden><label>${t("cart.bag.country")} <select data-country></select></label></p>
<section data-signin hidden aria-live="polite">
  <h2>${t("cart.handoff.signin-title")}</h2>
  <p>${t("cart.handoff.signin-lead")}</p>
  <form data-signin-form><label>${t("cart.bag.email")} <input type="email" name="email" required></label>
  <button type="submit">${t("cart.bag.send-link")}</button></form>
  <p data-link-sent hidden>${t("cart.bag.link-sent")}</p>
</section>
<p data-who hidden>${t("cart.bag.signed-in")} <span></span></p>
<p role="alert" data-error hidden></p>
<p><button data-checkout hidden>${t("cart.bag.checkout")}</button></p>`;
  const script = `
const data = JSON.parse(document.getElementById("data").textContent);
const bag = window.sitewireBag;
const $ = (s) => document.querySelector(s);
const params = new URLSearchParams(location.search);
const money = (minor, currency) => new Intl.NumberFormat(document.documentElement.lang, { style: "currency", currency })
  .format(minor / 10 ** (new Intl.NumberFormat("en", { style: "currency", currency }).resolvedOptions().maximumFractionDigits));
function render() {
  const current = bag.read();
  $("[data-empty]").hidden = current.lines.length > 0;
  $("[data-lines]").hidden = current.lines.length === 0;
  $("[data-checkout]").hidden = current.lines.length === 0;
  const rows = current.lines.map((l, i) => {
    const tr = document.createElement("tr");
    tr.dataset.sku = l.sku;
    const name = document.createElement("td");
    name.textContent = l.label && l.label !== "Default Title" ? l.name + " (" + l.label + ")" : l.name;
    const qty = document.createElement("td");
    qty.textContent = "× " + l.quantity;
    const price = document.createElement("td");
    price.className = "n";
    price.textContent = money(l.unit_amount * l.quantity, l.currency);
    tr.append(name, qty, price);
    return tr;
  });
  $("[data-lines] tbody").replaceChildren(...rows);
  const total = current.lines.reduce((sum, l) => sum + l.unit_amount * l.quantity, 0);
  $("[data-total]").textContent = current.lines.length ? money(total, current.lines[0].currency) : "";
  const ships = current.lines.some((l) => l.kind === "good" || l.kind === "print");
  $("[data-country-row]").hidden = !ships || data.shipsTo.length === 0;
  const select = $("[data-country]");
  select.replaceChildren(...data.shipsTo.map((c) => new Option(c, c, false, c === current.country)));
  if (ships && !current.country && data.shipsTo.length) bag.setCountry(select.value);
}
$("[data-country]").addEventListener("change", (e) => bag.setCountry(e.target.value));
async function checkout() {
  $("[data-error]").hidden = true;
  try {
    const outcome = await bag.checkout();
    if (outcome.signIn) $("[data-signin]").hidden = false;
  } catch (error) {
    $("[data-error]").textContent = error.message;
    $("[data-error]").hidden = false;
  }
}
$("[data-checkout]").addEventListener("click", checkout);
$("[data-signin-form]").addEventListener("submit", async (e) => {
  e.preventDefault();
  const email = new FormData(e.target).get("email");
  const response = await fetch("/api/store/sign-in", {
    method: "POST",
    headers: { "content-type": "application/json" },
    body: JSON.stringify({ email, intent: "buy", next: "/cart?intent=buy" }),
  });
  $("[data-link-sent]").hidden = !response.ok;
});
render();
const session = await window.sitewireSession.ready;
if (session) {
  $("[data-who]").hidden = false;
  $("[data-who] span").textContent = session.email || "";
}
if (params.get("intent") === "buy") {
  // back from the sign-in with intent buy: continue to checkout; a guest sees the sign-in
  if (session && bag.read().lines.length) await checkout();
  else if (!session) $("[data-signin]").hidden = false;
}
document.body.dataset.ready = "true";`;
  return page(texts["cart.bag.title"], language, body, { shipsTo }, script);
}

function appPage(texts: Texts, language: string, status: string): string {
  const success = status === "success";
  const body = success
    ? `<h1>${escapeHtml(texts["cart.app.success-title"])}</h1><p>${
      escapeHtml(texts["cart.app.success-lead"])
    }</p>`
    : `<h1>${escapeHtml(texts["cart.bag.title"])}</h1><p><a class="button" href="/cart">${
      escapeHtml(texts["cart.handoff.open-bag"])
    }</a></p>`;
  // paid: the bag is done (the order is confirmed by the payment provider's event, not by this page)
  const script = success
    ? `window.sitewireBag.clear(); document.body.dataset.ready = "true";`
    : `document.body.dataset.ready = "true";`;
  return page(
    success ? texts["cart.app.success-title"] : texts["cart.bag.title"],
    language,
    body,
    {},
    script,
  );
}

/** The pages' handler: answers the paths above, undefined for any other. */
export function cartPages(ctx: FunctionContext): (request: Request) => Promise<Response | undefined> {
  return async (request) => {
    if (request.method !== "GET" && request.method !== "HEAD") return undefined;
    const url = new URL(request.url);
    const path = url.pathname.replace(/\/+$/, "") || "/";
    if (path === "/cart/bag.js") {
      return new Response(await readBagScript(), {
        headers: { "content-type": "text/javascript; charset=utf-8", "cache-control": "no-cache" },
      });
    }
    const handoff = path.match(/^\/cart\/c\/([^/]+)$/);
    // a segment that is not a token names no cart (and is never decoded: it may not even be valid %-encoding)
    const token = handoff && isCartToken(handoff[1]) ? handoff[1] : null;
    const isApp = path === "/app" && url.searchParams.has("checkout");
    if (!handoff && path !== "/cart" && !isApp) return undefined;
    const site = await readSiteSettings(ctx.sql);
    if (!site || !moduleOn(site, "store")) return undefined;
    const siteLanguage = (site?.locales.find((l) => l.default)?.code ?? "en").split("-")[0];
    const { texts, language } = textsFor(request, siteLanguage);
    const { shipsTo } = await shopOf(ctx.sql, site);
    const html = handoff
      ? handoffPage(token, texts, language, shipsTo)
      : path === "/cart"
      ? bagPage(texts, language, shipsTo)
      : appPage(texts, language, url.searchParams.get("checkout") ?? "");
    return new Response(html, { status: handoff && !token ? 404 : 200, headers: HEADERS });
  };
}
