// deno-lint-ignore-file no-window -- a browser script: window is its global
// The site's bag and session, the browser script /cart/bag.js (the storefront function serves this file). The product
// pages of the site add lines to the bag with window.sitewireBag.add(...); the cart handoff page and
// the bag page use the same calls. The bag lives in localStorage; its checkout goes to the store
// function (POST /api/store/checkout), which prices every line from the catalog again.
//
//   sitewireBag.read()            { lines: [ { sku, variant, quantity, kind, name, label, unit_amount,
//                                   currency, image, handle } ], country, cart }
//   sitewireBag.clear()
//   sitewireBag.add(line)         as a product page adds: the same sku and variant join one line;
//                                 goods and prints stack up to 10, a book read online or a download is 1
//   sitewireBag.setCountry(code)  the shipping country
//   sitewireBag.checkout()        opens the payment page; a line a guest may not buy answers
//                                 { signIn: true } (the caller opens the sign-in with intent buy)
//   sitewireSession.ready         resolves once the session is known (null for a guest); a sign-in
//                                 link's return (#access_token=...) is taken up here
(() => {
  const BAG_KEY = "sitewire.bag";
  const SESSION_KEY = "sitewire.session";
  const CAP = 10;
  const STACKABLE = ["good", "print"];
  const empty = () => ({ lines: [], country: null, cart: null });
  const load = () => {
    try {
      const bag = JSON.parse(localStorage.getItem(BAG_KEY) || "null");
      return bag && Array.isArray(bag.lines) ? bag : empty();
    } catch (_) {
      return empty();
    }
  };
  const save = (bag) => {
    localStorage.setItem(BAG_KEY, JSON.stringify(bag));
    dispatchEvent(new CustomEvent("sitewire:bag", { detail: bag }));
    return bag;
  };

  const session = {
    get() {
      try {
        const s = JSON.parse(localStorage.getItem(SESSION_KEY) || "null");
        if (!s || !s.access_token) return null;
        const claims = JSON.parse(atob(s.access_token.split(".")[1].replace(/-/g, "+").replace(/_/g, "/")));
        if (claims.exp && claims.exp * 1000 < Date.now()) return null;
        return { access_token: s.access_token, email: claims.email || null };
      } catch (_) {
        return null;
      }
    },
    set(accessToken) {
      localStorage.setItem(SESSION_KEY, JSON.stringify({ access_token: accessToken }));
      return session.get();
    },
    clear() {
      localStorage.removeItem(SESSION_KEY);
    },
  };
  // a sign-in link returns with the session in the address's fragment; take it and clean the address
  session.ready = new Promise((resolve) => {
    const hash = new URLSearchParams(location.hash.slice(1));
    const token = hash.get("access_token");
    if (token) {
      session.set(token);
      history.replaceState(null, "", location.pathname + location.search);
    }
    resolve(session.get());
  });

  const bag = {
    read: load,
    clear: () => save(empty()),
    add(line) {
      const current = load();
      const cap = STACKABLE.includes(line.kind) ? CAP : 1;
      const same = current.lines.find((l) => l.sku === line.sku && (l.variant || null) === (line.variant || null));
      if (same) same.quantity = Math.min(cap, same.quantity + (line.quantity || 1));
      else current.lines.push({ ...line, variant: line.variant || null, quantity: Math.min(cap, Math.max(1, line.quantity || 1)) });
      return save(current);
    },
    setQuantity(index, quantity) {
      const current = load();
      const line = current.lines[index];
      if (!line) return current;
      if (quantity <= 0) current.lines.splice(index, 1);
      else line.quantity = Math.min(STACKABLE.includes(line.kind) ? CAP : 1, quantity);
      return save(current);
    },
    setCountry(code) {
      const current = load();
      current.country = code || null;
      return save(current);
    },
    setCart(token) {
      const current = load();
      current.cart = token || null;
      return save(current);
    },
    async checkout() {
      const current = load();
      const who = await session.ready.then(() => session.get());
      const response = await fetch("/api/store/checkout", {
        method: "POST",
        headers: { "content-type": "application/json", ...(who ? { authorization: "Bearer " + who.access_token } : {}) },
        body: JSON.stringify({
          lines: current.lines.map((l) => ({ sku: l.sku, variant: l.variant, quantity: l.quantity })),
          country: current.country,
          cart: current.cart,
          email: who ? who.email : undefined,
        }),
      });
      const body = await response.json().catch(() => ({}));
      if (response.ok && body.url) {
        location.assign(body.url);
        return { redirected: true };
      }
      const code = body.errors && body.errors[0] && body.errors[0].extensions && body.errors[0].extensions.code;
      if (response.status === 401) {
        if (who) session.clear();
        return { signIn: true, code };
      }
      const error = new Error((body.errors && body.errors[0] && body.errors[0].message) || "HTTP " + response.status);
      error.code = code;
      throw error;
    },
  };
  window.sitewireBag = bag;
  window.sitewireSession = session;
})();
