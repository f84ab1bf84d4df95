// deno-lint-ignore-file no-window no-window-prefix -- a browser script: window is its global
// The support desk's chat widget: GET /api/desk/packs/js/sdk.js. One script, no build step, loaded by
// Chatwoot's install snippet unchanged: window.chatwootSDK.run({ websiteToken, baseUrl }) (also
// window.VendorSupport.run) mounts it once; window.$chatwoot (the same object as window.$chatwidget) is
// the page's handle on it; chatwoot:* and chatwidget:* events are fired on window.
//
// The widget lives in a shadow root, so it styles nothing outside itself and the page's styles do not
// reach in. It talks to the client API (the contact token, source_id, is kept in this origin's
// localStorage) and hears agents' lines, status changes and typing over the desk's Action Cable socket
// (/api/desk/cable, subscribed with the conversation's pubsub_token): pushed, never polled.
(() => {
  "use strict";
  if (window.chatwootSDK && window.chatwootSDK.sitewire) return; // the script was included twice

  const script = document.currentScript;
  const scriptOrigin = script && script.src ? new URL(script.src, location.href).origin : location.origin;

  const TEXT = {
    en: {
      launcher: "Chat with us", title: "Support", close: "Close chat", popout: "Open in a new window",
      message: "Your message", placeholder: "Type your message…", send: "Send", typing: "Support is typing…",
      deleted: "This message was deleted", resolved: "This conversation was marked resolved.",
      voice: "Voice note", file: "File", image: "Picture", choices: "Choose one", unread: "unread messages",
      log: "Conversation", failed: "Not sent: ", you: "You", desk: "Support",
    },
    fr: {
      launcher: "Discutons", title: "Assistance", close: "Fermer la discussion", popout: "Ouvrir dans une nouvelle fenêtre",
      message: "Votre message", placeholder: "Écrivez votre message…", send: "Envoyer", typing: "L'assistance écrit…",
      deleted: "Ce message a été supprimé", resolved: "Cette conversation a été marquée résolue.",
      voice: "Message vocal", file: "Fichier", image: "Image", choices: "Choisissez", unread: "messages non lus",
      log: "Conversation", failed: "Non envoyé : ", you: "Vous", desk: "Assistance",
    },
    de: {
      launcher: "Schreiben Sie uns", title: "Support", close: "Chat schließen", popout: "In neuem Fenster öffnen",
      message: "Ihre Nachricht", placeholder: "Nachricht eingeben…", send: "Senden", typing: "Support schreibt…",
      deleted: "Diese Nachricht wurde gelöscht", resolved: "Dieses Gespräch wurde als gelöst markiert.",
      voice: "Sprachnachricht", file: "Datei", image: "Bild", choices: "Bitte wählen", unread: "ungelesene Nachrichten",
      log: "Gespräch", failed: "Nicht gesendet: ", you: "Sie", desk: "Support",
    },
    es: {
      launcher: "Habla con nosotros", title: "Soporte", close: "Cerrar chat", popout: "Abrir en una ventana nueva",
      message: "Tu mensaje", placeholder: "Escribe tu mensaje…", send: "Enviar", typing: "Soporte está escribiendo…",
      deleted: "Este mensaje fue eliminado", resolved: "Esta conversación se marcó como resuelta.",
      voice: "Nota de voz", file: "Archivo", image: "Imagen", choices: "Elige una opción", unread: "mensajes sin leer",
      log: "Conversación", failed: "No enviado: ", you: "Tú", desk: "Soporte",
    },
  };

  const STYLE = `
:host { all: initial; }
* { box-sizing: border-box; }
[hidden] { display: none !important; }
.root { --bg: #fff; --fg: #14161a; --muted: #5f6670; --line: #dde1e6; --accent: #1f6feb; --accent-fg: #fff;
  --bubble: #eef1f5; --mine: #1f6feb; --mine-fg: #fff;
  position: fixed; z-index: 2147483000; bottom: 20px; right: 20px; font: 14px/1.45 system-ui, -apple-system, "Segoe UI", sans-serif;
  color: var(--fg); color-scheme: light; }
.root.left { right: auto; left: 20px; }
.root.dark { --bg: #15181d; --fg: #eef1f5; --muted: #a3abb5; --line: #2c323a; --bubble: #232830; color-scheme: dark; }
@media (prefers-color-scheme: dark) {
  .root.auto { --bg: #15181d; --fg: #eef1f5; --muted: #a3abb5; --line: #2c323a; --bubble: #232830; color-scheme: dark; }
}
.root.page { position: static; width: 100%; height: 100%; }
.launcher { display: flex; align-items: center; gap: 8px; margin-left: auto; min-width: 56px; height: 56px; padding: 0 16px;
  border: 0; border-radius: 28px; background: var(--accent); color: var(--accent-fg); font: inherit; font-weight: 600;
  cursor: pointer; box-shadow: 0 4px 16px rgba(0,0,0,.2); position: relative; }
.root.left .launcher { margin-left: 0; }
.launcher svg { width: 24px; height: 24px; flex: none; }
.launcher:focus-visible, button:focus-visible, textarea:focus-visible, a:focus-visible { outline: 3px solid #f5a623; outline-offset: 2px; }
.badge { position: absolute; top: -4px; right: -4px; min-width: 20px; height: 20px; padding: 0 6px; border-radius: 10px;
  background: #d73a49; color: #fff; font-size: 12px; line-height: 20px; text-align: center; }
.panel { display: flex; flex-direction: column; width: min(380px, calc(100vw - 40px)); height: min(600px, calc(100vh - 110px));
  margin-bottom: 12px; background: var(--bg); border: 1px solid var(--line); border-radius: 14px; overflow: hidden;
  box-shadow: 0 8px 32px rgba(0,0,0,.22); }
.root.page .panel { width: 100%; height: 100%; margin: 0; border: 0; border-radius: 0; box-shadow: none; }
header { display: flex; align-items: center; gap: 6px; padding: 12px 14px; background: var(--accent); color: var(--accent-fg); }
header h2 { flex: 1; margin: 0; font-size: 16px; }
header button { width: 32px; height: 32px; border: 0; border-radius: 8px; background: transparent; color: inherit; cursor: pointer; font: inherit; font-size: 18px; }
header button:hover { background: rgba(255,255,255,.16); }
ol { flex: 1; margin: 0; padding: 12px; list-style: none; overflow-y: auto; display: flex; flex-direction: column; gap: 8px; }
li { max-width: 85%; padding: 8px 11px; border-radius: 12px; background: var(--bubble); white-space: pre-wrap; overflow-wrap: anywhere; }
li.incoming { align-self: flex-end; background: var(--mine); color: var(--mine-fg); }
li.activity { align-self: center; max-width: 100%; background: transparent; color: var(--muted); font-size: 13px; text-align: center; }
li.failed { opacity: .7; outline: 1px dashed #d73a49; }
li .who { display: block; font-size: 12px; font-weight: 600; color: var(--muted); }
li.incoming .who { color: inherit; opacity: .8; }
li .deleted { font-style: italic; opacity: .8; }
li img { display: block; max-width: 100%; border-radius: 8px; margin-top: 6px; }
li audio { display: block; width: 100%; margin-top: 6px; }
li a { color: inherit; }
.choices { display: flex; flex-wrap: wrap; gap: 6px; margin-top: 8px; }
.choices button { padding: 6px 10px; border: 1px solid var(--accent); border-radius: 16px; background: var(--bg); color: var(--fg); font: inherit; cursor: pointer; }
.choices button[aria-pressed="true"] { background: var(--accent); color: var(--accent-fg); }
.choices button:disabled { cursor: default; opacity: .75; }
.status { min-height: 20px; padding: 0 14px; color: var(--muted); font-size: 12px; }
form { display: flex; gap: 8px; padding: 10px; border-top: 1px solid var(--line); }
textarea { flex: 1; min-height: 40px; max-height: 120px; padding: 9px 10px; border: 1px solid var(--line); border-radius: 10px;
  background: var(--bg); color: var(--fg); font: inherit; resize: none; }
form button { padding: 0 14px; border: 0; border-radius: 10px; background: var(--accent); color: var(--accent-fg); font: inherit; font-weight: 600; cursor: pointer; }
.sr { position: absolute; width: 1px; height: 1px; overflow: hidden; clip: rect(0 0 0 0); white-space: nowrap; }
`;

  const ICON = '<svg viewBox="0 0 24 24" aria-hidden="true" focusable="false"><path fill="currentColor" d="M12 3C6.5 3 2 6.6 2 11c0 2.4 1.3 4.5 3.4 6L4.5 21l4.4-2.3c1 .2 2 .3 3.1.3 5.5 0 10-3.6 10-8s-4.5-8-10-8Z"/></svg>';

  const USER_KEYS = ["avatar_url", "email", "name"];

  function fire(name, detail) {
    for (const prefix of ["chatwoot", "chatwidget"]) {
      window.dispatchEvent(new CustomEvent(`${prefix}:${name}`, { detail }));
    }
  }

  function element(tag, attributes, children) {
    const node = document.createElement(tag);
    for (const [key, value] of Object.entries(attributes || {})) {
      if (value === undefined || value === null || value === false) continue;
      if (key === "text") node.textContent = value;
      else if (key.startsWith("on")) node.addEventListener(key.slice(2), value);
      else node.setAttribute(key, value === true ? "" : String(value));
    }
    for (const child of children || []) if (child) node.append(child);
    return node;
  }

  /** A small Action Cable consumer: one socket, one RoomChannel subscription, reconnecting with backoff. */
  function cable(url, pubsubToken, handlers) {
    const identifier = JSON.stringify({ channel: "RoomChannel", pubsub_token: pubsubToken });
    let socket;
    let stopped = false;
    let attempts = 0;
    let confirmedOnce = false;
    let lastFrame = 0;
    // deno-lint-ignore prefer-const -- set when the socket opens, cleared when it stops
    let watchdog;
    let retry;
    function connect() {
      if (stopped) return;
      socket = new WebSocket(url, ["actioncable-v1-json", "actioncable-unsupported"]);
      socket.onmessage = (event) => {
        lastFrame = Date.now();
        let frame;
        try {
          frame = JSON.parse(event.data);
        } catch (_) {
          return;
        }
        if (frame.type === "welcome") {
          socket.send(JSON.stringify({ command: "subscribe", identifier }));
        } else if (frame.type === "confirm_subscription" && frame.identifier === identifier) {
          attempts = 0;
          handlers.connected(confirmedOnce);
          confirmedOnce = true;
        } else if (frame.type === "reject_subscription" && frame.identifier === identifier) {
          stop();
          handlers.rejected();
        } else if (frame.type === "disconnect" && frame.reconnect === false) {
          stop();
        } else if (!frame.type && frame.identifier === identifier && frame.message) {
          handlers.received(frame.message);
        }
      };
      socket.onclose = () => {
        if (stopped) return;
        clearTimeout(retry);
        retry = setTimeout(connect, Math.min(15000, 500 * 2 ** attempts++));
      };
      lastFrame = Date.now();
    }
    // the server pings every three seconds: a socket silent for longer than three pings is gone
    watchdog = setInterval(() => {
      if (!stopped && socket && socket.readyState === WebSocket.OPEN && Date.now() - lastFrame > 9000) socket.close();
    }, 3000);
    function stop() {
      stopped = true;
      clearInterval(watchdog);
      clearTimeout(retry);
      if (socket) socket.close();
    }
    connect();
    return { stop };
  }

  function run(options) {
    if (window.$chatwoot) return; // mounts once
    const given = options || {};
    const settings = window.chatwootSettings || {};
    const websiteToken = String(given.websiteToken || "");
    const baseUrl = String(given.baseUrl || scriptOrigin).replace(/\/+$/, "");
    const onPage = given.mode === "page";
    const pickLocale = (value) => {
      const wanted = String(value || "en").toLowerCase().replace("_", "-");
      return TEXT[wanted] ? wanted : TEXT[wanted.split("-")[0]] ? wanted.split("-")[0] : "en";
    };
    const locale = settings.useBrowserLanguage ? pickLocale(navigator.language) : pickLocale(settings.locale);
    const t = TEXT[locale];
    const darkMode = ["dark", "auto"].includes(settings.darkMode) ? settings.darkMode : "light";
    const clientRoot = `${baseUrl}/api/desk/public/api/v1/inboxes/${encodeURIComponent(websiteToken)}`;
    const doorRoot = `${baseUrl}/api/desk/widget/v1/inboxes/${encodeURIComponent(websiteToken)}`;
    const cableUrl = `${baseUrl.replace(/^http/, "ws")}/api/desk/cable`;
    const storeKey = `cw_sitewire_${websiteToken}`;
    let returnedSession = null;

    // ---- the site's session, on the site's own pages ----
    // On the site's origin the widget carries the site's session (a person's JWT) on every call, so the
    // desk makes the visitor's contact from their account (verified, their profile's name and address)
    // instead of a guest. It is where the site's pages keep it: `sitewire.session` (the bag script, and
    // a sign-in link's return `#access_token=...`, taken up here too), else supabase-js's own
    // `sb-<project>-auth-token`. On another site's page there is none: the visitor is a guest there.
    const onSiteOrigin = new URL(baseUrl).origin === location.origin;
    const SESSION_KEY = "sitewire.session";
    if (onSiteOrigin && /(^#|&)access_token=/.test(location.hash)) {
      const returned = new URLSearchParams(location.hash.slice(1));
      try {
        localStorage.setItem(SESSION_KEY, JSON.stringify({ access_token: returned.get("access_token") }));
      } catch (_) {
        // storage refused: the session lasts as long as the page
      }
      returnedSession = returned.get("access_token");
      history.replaceState(null, "", location.pathname + location.search);
    }
    function siteSession() {
      if (!onSiteOrigin) return null;
      const stored = [returnedSession];
      try {
        stored.push((JSON.parse(localStorage.getItem(SESSION_KEY) || "null") || {}).access_token);
        for (let i = 0; i < localStorage.length; i++) {
          const key = localStorage.key(i);
          if (/^sb-.+-auth-token$/.test(key)) stored.push((JSON.parse(localStorage.getItem(key) || "null") || {}).access_token);
        }
      } catch (_) {
        // storage refused or a value that is not JSON: whatever was read so far
      }
      for (const token of stored) {
        try {
          const claims = JSON.parse(atob(token.split(".")[1].replace(/-/g, "+").replace(/_/g, "/")));
          if (typeof claims.sub === "string" && !(claims.exp && claims.exp * 1000 < Date.now())) {
            return { token, person: claims.sub };
          }
        } catch (_) {
          // not a JWT: the next place
        }
      }
      return null;
    }
    const personNow = () => (siteSession() || {}).person || null;

    // ---- the visitor's contact and thread, kept in this origin's storage ----
    const load = () => {
      try {
        return JSON.parse(localStorage.getItem(storeKey) || "null") || {};
      } catch (_) {
        return {};
      }
    };
    const save = () => {
      try {
        localStorage.setItem(storeKey, JSON.stringify(state));
      } catch (_) {
        // storage refused (private mode): the thread lasts as long as the page
      }
    };
    let state = load();
    if (onPage && /(^#|&)cw=/.test(location.hash)) {
      // a popout hands its contact and thread over in the fragment, which never reaches a server; the
      // visitor carried that thread here, so it stays theirs whoever is signed in on this page
      const handed = new URLSearchParams(location.hash.slice(1));
      state = { contact: handed.get("cw"), conversation: Number(handed.get("c")) || undefined, person: personNow() };
      save();
      history.replaceState(null, "", location.pathname + location.search);
    }
    // the stored thread is the one of whoever was signed in when it was made: after a sign-in, a sign-out
    // or another person's, the widget starts again (a person's thread never shows to the next visitor)
    if ((state.person || null) !== personNow()) {
      state = {};
      save();
    }
    let pendingConversationAttributes = {};
    let live;
    let pubsubToken;
    const shown = new Map(); // message id → its list item
    const pending = new Map(); // echo_id → its list item, until the server answers
    let lastSeenAt = 0;
    let unread = 0;
    let typingTimer;
    let ownTyping = false;
    let ownTypingTimer;

    async function call(method, url, body) {
      const headers = body === undefined ? {} : { "content-type": "application/json" };
      const session = siteSession();
      if (session) headers.authorization = `Bearer ${session.token}`;
      const send = () => fetch(url, { method, headers, body: body === undefined ? undefined : JSON.stringify(body) });
      let response = await send();
      // the desk takes one line a second: a refused line was not kept, so a visitor quicker than that (a
      // choice clicked right after a line) is sent again once the short wait is over, not lost
      for (let tries = 0; response.status === 429 && tries < 2; tries++) {
        const wait = Number(response.headers.get("retry-after"));
        if (!(wait > 0 && wait <= 2)) break;
        await response.body?.cancel();
        await new Promise((resolve) => setTimeout(resolve, wait * 1000));
        response = await send();
      }
      const text = await response.text();
      const data = text ? JSON.parse(text) : null;
      if (!response.ok) {
        const error = new Error((data && data.error) || `HTTP ${response.status}`);
        error.status = response.status;
        throw error;
      }
      return data;
    }

    function reportError(error) {
      fire("error", { message: error.message, status: error.status || null });
    }

    // one contact and one thread however many calls ask at once (a second line typed before the first
    // is answered, setUser while the thread opens)
    const making = new Map();
    function once(key, make) {
      if (!making.has(key)) making.set(key, make().finally(() => making.delete(key)));
      return making.get(key);
    }

    function ensureContact() {
      if (state.contact) return Promise.resolve(state.contact);
      if (personNow()) return accountThread().then(() => state.contact);
      return once("contact", async () => {
        const contact = await call("POST", `${clientRoot}/contacts`, { path: location.pathname });
        state = { contact: contact.source_id, person: null };
        save();
        return state.contact;
      });
    }

    /**
     * A signed-in visitor's contact is their account's: the desk makes (or finds) it from the session and
     * answers a fresh token for it, and the person's latest thread, from whichever device, is taken up.
     */
    function accountThread() {
      return once("account", async () => {
        const person = personNow();
        const contact = await call("POST", `${clientRoot}/contacts`, { path: location.pathname });
        const threads = await call("GET", `${clientRoot}/contacts/${encodeURIComponent(contact.source_id)}/conversations`);
        state = { contact: contact.source_id, person, conversation: threads[0] ? threads[0].id : undefined };
        save();
        if (threads[0]) adopt(threads[0]);
      });
    }

    /**
     * Runs a call on the visitor's thread; when an account contact's token is no longer known (the same
     * person opened the desk from another device, which hands out a new one) it is made again, once.
     */
    async function onThread(run) {
      try {
        return await run();
      } catch (error) {
        if (!(error.status === 404 || error.status === 401) || !state.person || state.person !== personNow()) throw error;
        state = {};
        await accountThread();
        return await run();
      }
    }

    const conversationRoot = () =>
      `${clientRoot}/contacts/${encodeURIComponent(state.contact)}/conversations/${state.conversation}`;

    async function ensureConversation() {
      await ensureContact();
      if (state.conversation) return state.conversation;
      return await once("conversation", async () => {
        const conversation = await call(
          "POST",
          `${clientRoot}/contacts/${encodeURIComponent(state.contact)}/conversations`,
          { path: location.pathname, custom_attributes: pendingConversationAttributes },
        );
        pendingConversationAttributes = {};
        state.conversation = conversation.id;
        save();
        adopt(conversation);
        return state.conversation;
      });
    }

    /** Takes a conversation's lines and its live channel. */
    function adopt(conversation) {
      for (const message of conversation.messages || []) show(message, false);
      setResolved(conversation.status === "resolved");
      if (conversation.pubsub_token && conversation.pubsub_token !== pubsubToken) listen(conversation.pubsub_token);
    }

    function listen(token) {
      if (live) live.stop();
      pubsubToken = token;
      live = cable(cableUrl, token, {
        // lines made before the subscription held (the acknowledgement of a first line) or while the
        // socket was down
        connected: catchUp,
        rejected() {
          live = undefined;
        },
        received(broadcast) {
          const data = broadcast.data || {};
          if (broadcast.event === "message.created" || broadcast.event === "message.updated") {
            show(data, true);
            if (data.message_type !== 0) setTyping(false);
          } else if (broadcast.event === "conversation.status_changed") {
            const resolved = data.status === "resolved";
            // said once in the log as it happens (it is no line of the thread); a later line reopens it
            if (resolved && panel.dataset.status !== "resolved") log.append(element("li", { class: "activity", text: t.resolved }));
            setResolved(resolved);
          } else if (broadcast.event === "conversation.typing_on" || broadcast.event === "conversation.typing_off") {
            if (data.user && data.user.type === "contact") return;
            setTyping(broadcast.event === "conversation.typing_on");
          }
        },
      });
    }

    async function catchUp() {
      if (!state.conversation) return;
      try {
        const lines = await call("GET", `${conversationRoot()}/messages?after=${lastSeenAt}`);
        for (const message of lines) show(message, true);
      } catch (error) {
        reportError(error);
      }
    }

    async function resume() {
      try {
        if (!state.contact && personNow()) return await accountThread();
        if (!state.contact || !state.conversation) return;
        try {
          adopt(await call("GET", conversationRoot()));
        } catch (error) {
          if (error.status !== 404 && error.status !== 401) throw error;
          state = {};
          save();
          if (personNow()) await accountThread();
        }
      } catch (error) {
        reportError(error);
      }
    }

    // ---- the DOM, inside a shadow root ----
    const holder = element("div", { id: "cw-widget-holder", class: "woot-widget-holder", "data-turbo-permanent": true });
    const shadow = holder.attachShadow({ mode: "open" });
    const panelId = "cw-panel";
    const badge = element("span", { class: "badge", hidden: true, "aria-hidden": "true" });
    const launcherLabel = element("span", { class: "sr" });
    const launcher = element("button", {
      type: "button", class: "launcher", "aria-controls": panelId, "aria-expanded": "false",
      onclick: () => api.toggle(),
    });
    launcher.innerHTML = ICON;
    const launcherTitle = settings.launcherTitle || "";
    if (launcherTitle || settings.type === "expanded_bubble") launcher.append(element("span", { text: launcherTitle || t.launcher }));
    launcher.append(launcherLabel, badge);
    const title = element("h2", { id: "cw-title", text: given.title || t.title });
    const popoutButton = onPage ? null : element("button", {
      type: "button", "aria-label": t.popout, title: t.popout, text: "↗", onclick: () => api.popoutChatWindow(),
    });
    const closeButton = onPage ? null : element("button", {
      type: "button", "aria-label": t.close, title: t.close, text: "×", onclick: () => api.toggle("close"),
    });
    const log = element("ol", { role: "log", "aria-live": "polite", "aria-label": t.log, tabindex: "0" });
    const status = element("div", { class: "status", role: "status", "aria-live": "polite" });
    const input = element("textarea", {
      id: "cw-input", rows: "1", placeholder: t.placeholder, "aria-label": t.message, maxlength: "4000",
    });
    const form = element("form", { "aria-label": t.message }, [
      input,
      element("button", { type: "submit", text: t.send }),
    ]);
    const panel = element("section", {
      id: panelId, class: "panel", role: onPage ? "region" : "dialog", "aria-labelledby": "cw-title", hidden: !onPage,
    }, [element("header", {}, [title, popoutButton, closeButton]), log, status, form]);
    const root = element("div", {
      class: ["root", settings.position === "left" ? "left" : "right", darkMode, onPage ? "page" : ""].join(" "),
      lang: locale,
    }, [panel, onPage ? null : launcher]);
    const style = document.createElement("style");
    style.textContent = STYLE;
    shadow.append(style, root);

    function updateLauncher() {
      launcher.setAttribute("aria-expanded", String(api.isOpen));
      launcherLabel.textContent = unread ? `${t.launcher}, ${unread} ${t.unread}` : t.launcher;
      badge.textContent = String(unread);
      badge.hidden = unread === 0;
      launcher.hidden = onPage || api.hideMessageBubble;
    }

    function setTyping(on) {
      clearTimeout(typingTimer);
      status.textContent = on ? t.typing : "";
      // a typing_off may be lost with a closed tab: the indicator does not outlive half a minute
      if (on) typingTimer = setTimeout(() => setTyping(false), 30000);
    }

    function setResolved(resolved) {
      panel.dataset.status = resolved ? "resolved" : "open";
    }

    function bodyOf(message) {
      const attrs = message.content_attributes || {};
      const parts = [];
      if (message.message_type === 1 && message.sender) {
        parts.push(element("span", { class: "who", text: message.sender.name || t.desk }));
      }
      if (attrs.deleted) {
        parts.push(element("span", { class: "deleted", text: t.deleted }));
        return parts;
      }
      if (attrs.kind === "voice") {
        parts.push(element("span", { text: `${t.voice}${attrs.seconds ? ` (${Math.round(attrs.seconds)} s)` : ""}` }));
      }
      if (message.content) parts.push(document.createTextNode(message.content));
      for (const file of message.attachments || []) {
        if (!file.data_url) continue;
        if (file.file_type === "image") {
          parts.push(element("a", { href: file.data_url, target: "_blank", rel: "noopener" }, [
            element("img", { src: file.thumb_url || file.data_url, alt: `${t.image}${file.extension ? ` (${file.extension})` : ""}`, loading: "lazy" }),
          ]));
        } else if (file.file_type === "audio") {
          parts.push(element("audio", { controls: true, preload: "none", src: file.data_url, "aria-label": t.voice }));
        } else {
          const size = file.file_size ? ` · ${Math.max(1, Math.round(file.file_size / 1024))} KB` : "";
          parts.push(element("a", {
            href: file.data_url, target: "_blank", rel: "noopener",
            text: `${t.file}${file.extension ? ` .${file.extension}` : ""}${size}`,
          }));
        }
      }
      if (message.content_type === "input_select" && Array.isArray(attrs.items)) {
        const taken = attrs.taken !== undefined && attrs.taken !== null ? attrs.taken
          : Array.isArray(attrs.submitted_values) && attrs.submitted_values[0] ? attrs.submitted_values[0].value : undefined;
        const group = element("div", { class: "choices", role: "group", "aria-label": t.choices });
        for (const item of attrs.items) {
          group.append(element("button", {
            type: "button", text: item.title, disabled: taken !== undefined,
            "aria-pressed": taken !== undefined && String(taken) === String(item.value) ? "true" : "false",
            onclick: (event) => choose(message, item, group, event.currentTarget),
          }));
        }
        parts.push(group);
      }
      return parts;
    }

    /** Shows a line (or replaces the one already shown); `fresh` lines fire on-message. */
    function show(message, fresh) {
      if (!message || typeof message.id !== "number") return;
      lastSeenAt = Math.max(lastSeenAt, message.created_at || 0);
      const kind = ["incoming", "outgoing", "activity"][message.message_type] || "outgoing";
      const item = element("li", { class: kind, "data-id": message.id }, bodyOf(message));
      const mine = message.echo_id && pending.get(message.echo_id);
      const known = shown.get(message.id) || mine;
      if (mine) pending.delete(message.echo_id);
      shown.set(message.id, item);
      if (known) {
        known.replaceWith(item);
        return;
      }
      log.append(item);
      log.scrollTop = log.scrollHeight;
      if (!fresh) return;
      fire("on-message", { ...message, message });
      if (message.message_type === 0) return;
      if (api.isOpen) markSeen();
      else {
        unread += 1;
        updateLauncher();
      }
    }

    async function markSeen() {
      if (!state.conversation) return;
      try {
        await call("POST", `${conversationRoot()}/update_last_seen`);
      } catch (error) {
        reportError(error);
      }
    }

    async function send(content) {
      const echoId = `echo-${Date.now().toString(36)}-${Math.random().toString(36).slice(2, 8)}`;
      const item = element("li", { class: "incoming", "aria-busy": "true", text: content });
      pending.set(echoId, item);
      log.append(item);
      log.scrollTop = log.scrollHeight;
      try {
        const answer = await onThread(async () => {
          await ensureConversation();
          stopOwnTyping();
          return await call("POST", `${conversationRoot()}/messages`, { content, echo_id: echoId });
        });
        // the answer is the line, or the line then the acknowledgement
        for (const message of Array.isArray(answer) ? answer : [answer]) show(message, message.echo_id !== echoId);
      } catch (error) {
        pending.delete(echoId);
        item.classList.add("failed");
        item.removeAttribute("aria-busy");
        item.textContent = content;
        item.prepend(element("span", { class: "who", text: `${t.failed}${error.message}` }));
        reportError(error);
      }
    }

    async function choose(message, item, group, button) {
      for (const other of group.querySelectorAll("button")) other.disabled = true;
      button.setAttribute("aria-pressed", "true");
      try {
        const answer = await call(
          "POST",
          `${doorRoot}/contacts/${encodeURIComponent(state.contact)}/conversations/${state.conversation}/messages/${message.id}/choice`,
          { value: item.value },
        );
        for (const line of answer.messages || []) show(line, false);
      } catch (error) {
        button.setAttribute("aria-pressed", "false");
        // refused for now (a line too soon, the network): the offer can be taken again; 409 says it was taken
        if (error.status !== 409) for (const other of group.querySelectorAll("button")) other.disabled = false;
        reportError(error);
      }
    }

    function stopOwnTyping() {
      clearTimeout(ownTypingTimer);
      if (!ownTyping || !state.conversation) return;
      ownTyping = false;
      call("POST", `${conversationRoot()}/toggle_typing`, { typing_status: "off" }).catch(() => {});
    }

    input.addEventListener("input", () => {
      if (!state.conversation) return;
      if (!ownTyping) {
        ownTyping = true;
        call("POST", `${conversationRoot()}/toggle_typing`, { typing_status: "on" }).catch(() => {});
      }
      clearTimeout(ownTypingTimer);
      ownTypingTimer = setTimeout(stopOwnTyping, 3000);
    });
    input.addEventListener("keydown", (event) => {
      if (event.key === "Enter" && !event.shiftKey && !event.isComposing) {
        event.preventDefault();
        form.requestSubmit();
      }
    });
    form.addEventListener("submit", (event) => {
      event.preventDefault();
      const content = input.value.trim();
      if (!content) return;
      input.value = "";
      send(content);
    });
    root.addEventListener("keydown", (event) => {
      if (event.key === "Escape" && api.isOpen && !onPage) {
        api.toggle("close");
        launcher.focus();
      }
    });

    async function patchContact(body) {
      try {
        await ensureContact();
        await call("PATCH", `${clientRoot}/contacts/${encodeURIComponent(state.contact)}`, body);
      } catch (error) {
        reportError(error);
      }
    }

    function requireAttributes(attributes) {
      if (!attributes || typeof attributes !== "object" || !Object.keys(attributes).length) {
        throw new Error("Custom attributes should have atleast one key");
      }
    }
    function requireKey(key) {
      if (!key) throw new Error("Custom attribute is required");
    }

    // ---- window.$chatwoot / window.$chatwidget ----
    const api = {
      baseUrl,
      websiteToken,
      hasLoaded: false,
      isOpen: onPage,
      position: settings.position === "left" ? "left" : "right",
      locale,
      useBrowserLanguage: Boolean(settings.useBrowserLanguage),
      type: settings.type === "expanded_bubble" ? "expanded_bubble" : "standard",
      launcherTitle,
      hideMessageBubble: Boolean(settings.hideMessageBubble),
      showPopoutButton: Boolean(settings.showPopoutButton),
      widgetStyle: settings.widgetStyle === "flat" ? "flat" : "standard",
      darkMode,
      resetTriggered: false,
      toggle(state) {
        if (onPage) return;
        const open = state === "open" ? true : state === "close" ? false : !api.isOpen;
        if (open === api.isOpen) return;
        api.isOpen = open;
        panel.hidden = !open;
        if (open) {
          unread = 0;
          markSeen();
          input.focus();
        }
        updateLauncher();
        fire(open ? "opened" : "closed", null);
      },
      toggleBubbleVisibility(visibility) {
        if (visibility === "hide") api.hideMessageBubble = true;
        else if (visibility === "show") api.hideMessageBubble = false;
        updateLauncher();
      },
      popoutChatWindow() {
        api.toggle("close");
        const handed = state.contact
          ? `#${new URLSearchParams({ cw: state.contact, ...(state.conversation ? { c: String(state.conversation) } : {}) })}`
          : "";
        window.open(`${baseUrl}/support${handed}`, `webwidget_session_${websiteToken}`, "resizable=off,width=400,height=600");
      },
      setUser(identifier, user) {
        if (typeof identifier !== "string" && typeof identifier !== "number") {
          throw new Error("Identifier should be a string or a number");
        }
        if (!user || typeof user !== "object" || !Object.keys(user).some((key) => USER_KEYS.includes(key))) {
          throw new Error("User object should have one of the keys [avatar_url, email, name]");
        }
        const hash = JSON.stringify([identifier, user]);
        if (state.userHash === hash) return; // unchanged since the last call: nothing to send
        api.identifier = identifier;
        api.user = user;
        const given = {};
        for (const key of ["name", "email", "avatar_url", "phone_number", "identifier_hash"]) {
          if (user[key] !== undefined) given[key] = user[key];
        }
        patchContact({ ...given, identifier: String(identifier) }).then(() => {
          state.userHash = hash;
          save();
        });
      },
      setCustomAttributes(customAttributes) {
        requireAttributes(customAttributes);
        patchContact({ custom_attributes: customAttributes });
      },
      deleteCustomAttribute(customAttribute) {
        requireKey(customAttribute);
        patchContact({ custom_attributes: { [customAttribute]: null } });
      },
      // a thread's attributes go with the next thread this widget opens
      setConversationCustomAttributes(customAttributes) {
        requireAttributes(customAttributes);
        Object.assign(pendingConversationAttributes, customAttributes);
      },
      deleteConversationCustomAttribute(customAttribute) {
        requireKey(customAttribute);
        delete pendingConversationAttributes[customAttribute];
      },
      setLabel() {},
      removeLabel() {},
      setLocale() {},
      setColorScheme(scheme) {
        api.darkMode = ["dark", "auto"].includes(scheme) ? scheme : "light";
        root.classList.remove("light", "dark", "auto");
        root.classList.add(api.darkMode);
      },
      reset() {
        if (api.isOpen) api.toggle("close");
        if (live) live.stop();
        live = undefined;
        pubsubToken = undefined;
        state = {};
        save();
        pendingConversationAttributes = {};
        shown.clear();
        pending.clear();
        log.replaceChildren();
        unread = 0;
        lastSeenAt = 0;
        setTyping(false);
        delete api.identifier;
        delete api.user;
        updateLauncher();
        api.resetTriggered = true;
      },
    };

    window.$chatwoot = api;
    window.$chatwidget = api;
    updateLauncher();
    (document.body || document.documentElement).append(holder);
    resume().finally(() => {
      api.hasLoaded = true;
      fire("ready", null);
    });
    if (onPage) input.focus();
  }

  const sdk = { run };
  Object.defineProperty(sdk, "sitewire", { value: true });
  window.chatwootSDK = sdk;
  window.VendorSupport = sdk;
})();
