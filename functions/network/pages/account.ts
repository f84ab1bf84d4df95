// The account page /account/network: a member signed in with the site's session makes, lists and revokes
// app passwords (a new one is shown once) and can sign every app out. The page holds no data of its own:
// its script calls this function's XRPC methods with the site's session token, which it takes from the
// address's fragment (#access_token=..., as the site's sign-in links hand it over) and keeps for the tab.
import { escapeHtml, scriptJson } from "../../../shared/html.ts";

export interface AccountPage {
  siteName: string;
  handleDomain: string;
  appsAllowed: boolean;
}

export function renderAccountPage(page: AccountPage): string {
  return `<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<title>Apps and app passwords · ${escapeHtml(page.siteName)}</title>
<style>
  body { font: 16px/1.5 system-ui, sans-serif; max-width: 40rem; margin: 2rem auto; padding: 0 1rem; color: #1d1d1f; }
  h1 { font-size: 1.5rem; }
  .note { background: #f5f5f7; padding: .75rem 1rem; border-radius: .5rem; }
  .fresh { font: 1.25rem ui-monospace, monospace; letter-spacing: .05em; background: #e8f5e9; padding: .5rem 1rem; border-radius: .5rem; }
  table { width: 100%; border-collapse: collapse; margin: 1rem 0; }
  td, th { text-align: left; padding: .4rem; border-bottom: 1px solid #ddd; }
  [hidden] { display: none !important; }
  .error { color: #b00020; }
</style>
</head>
<body>
<h1>Apps and app passwords</h1>
<p>Sign a Bluesky app in to this site's community with your handle and an app password (never your site password).
Handles here end in <code>.${escapeHtml(page.handleDomain)}</code>.</p>
<p id="apps-off" class="note" ${page.appsAllowed ? "hidden" : ""}>This site does not let other apps sign in at the moment.</p>
<p id="signed-out" class="note" hidden>Sign in on the site first: this page works with your site session.</p>
<section id="signed-in" hidden>
  <p>Signed in as <strong id="handle"></strong> (<code id="did"></code>)</p>
  <form id="make">
    <label>Name of the app <input id="name" name="name" maxlength="64" required placeholder="My phone"></label>
    <button type="submit">Make an app password</button>
  </form>
  <div id="made" hidden>
    <p>Your new app password for <strong id="made-name"></strong>. Copy it now: it is shown only once.</p>
    <p class="fresh" id="made-password"></p>
  </div>
  <table>
    <thead><tr><th>App password</th><th>Made</th><th></th></tr></thead>
    <tbody id="list"></tbody>
  </table>
  <p id="empty" hidden>You have no app passwords.</p>
  <button id="everywhere" type="button">Sign every app out</button>
</section>
<p id="error" class="error" role="alert"></p>
<script type="module">
const config = ${scriptJson({ appsAllowed: page.appsAllowed })};
const fragment = new URLSearchParams(location.hash.slice(1));
if (fragment.get("access_token")) {
  sessionStorage.setItem("site-session", fragment.get("access_token"));
  history.replaceState(null, "", location.pathname + location.search);
}
const token = sessionStorage.getItem("site-session");
const $ = (id) => document.getElementById(id);
async function xrpc(nsid, body) {
  const res = await fetch("/xrpc/" + nsid, body === undefined
    ? { headers: { authorization: "Bearer " + token } }
    : { method: "POST", headers: { authorization: "Bearer " + token, "content-type": "application/json" }, body: JSON.stringify(body) });
  const text = await res.text();
  const data = text ? JSON.parse(text) : {};
  if (!res.ok) throw Object.assign(new Error(data.message || res.statusText), { status: res.status });
  return data;
}
function show(error) { $("error").textContent = error ? error.message : ""; }
async function refresh() {
  const { passwords } = await xrpc("com.atproto.server.listAppPasswords");
  $("list").replaceChildren(...passwords.map((p) => {
    const row = document.createElement("tr");
    const name = document.createElement("td"); name.textContent = p.name;
    const made = document.createElement("td"); made.textContent = new Date(p.createdAt).toLocaleString();
    const cell = document.createElement("td");
    const revoke = document.createElement("button");
    revoke.type = "button"; revoke.textContent = "Revoke"; revoke.dataset.name = p.name;
    revoke.addEventListener("click", async () => {
      try { await xrpc("com.atproto.server.revokeAppPassword", { name: p.name }); show(); await refresh(); }
      catch (e) { show(e); }
    });
    cell.append(revoke); row.append(name, made, cell); return row;
  }));
  $("empty").hidden = passwords.length > 0;
}
async function start() {
  if (!token) { $("signed-out").hidden = false; return; }
  try {
    const me = await fetch("/account/network/me", { headers: { authorization: "Bearer " + token } });
    if (!me.ok) throw Object.assign(new Error((await me.json()).message), { status: me.status });
    const session = await me.json();
    $("handle").textContent = session.handle; $("did").textContent = session.did;
    $("signed-in").hidden = false;
    await refresh();
  } catch (e) {
    if (e.status === 401 || e.status === 400) { sessionStorage.removeItem("site-session"); $("signed-out").hidden = false; }
    else show(e);
  }
}
$("make").addEventListener("submit", async (event) => {
  event.preventDefault();
  try {
    const made = await xrpc("com.atproto.server.createAppPassword", { name: $("name").value });
    $("made-name").textContent = made.name; $("made-password").textContent = made.password; $("made").hidden = false;
    $("name").value = ""; show(); await refresh();
  } catch (e) { show(e); }
});
$("everywhere").addEventListener("click", async () => {
  try {
    const res = await fetch("/account/network/sign-out-everywhere", { method: "POST", headers: { authorization: "Bearer " + token } });
    if (!res.ok) throw new Error((await res.json()).message);
    show(); $("error").textContent = "Every app is signed out.";
  } catch (e) { show(e); }
});
void config;
start();
</script>
</body>
</html>`;
}
