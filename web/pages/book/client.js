// deno-lint-ignore-file no-window no-window-prefix -- a browser script: window is its global
// The booker page's script (served inline by the scheduling function). Plain browser JavaScript: it
// reads its settings from #booker-data, loads open times from the page's own routes, and, when framed
// by @calcom/embed-core (?embed=<namespace>), speaks its message protocol to the parent window.
//
// Screens: pick a time and book (or pay: the checkout returns with ?paid=<session>; embedded, it opens
// in a window of its own and this frame waits for its outcome); after a booking,
// or with ?rescheduleUid=<uid> / ?cancelUid=<uid> and the attendee's ?email=, move or cancel it. Each
// outcome is posted to the parent: bookingSuccessfulV2, rescheduleBookingSuccessfulV2, bookingCancelled.
(function () {
  "use strict";
  const data = JSON.parse(document.getElementById("booker-data").textContent);
  const params = new URLSearchParams(location.search);
  const embedded = params.has("embed") && window.parent !== window;
  const namespace = params.get("embed") || "";
  // embed-core frames the page inline, or in a modal (a floating button opens a modal too)
  const embedType = ["modal", "floatingButton"].includes(params.get("embedType")) ? "modal" : "inline";
  const base = location.pathname.replace(/\/embed\/?$/, "").replace(/\/$/, "");
  let zone = params.get("timeZone") || Intl.DateTimeFormat().resolvedOptions().timeZone || "UTC";
  // Cal's embed sends layout=month_view (and week_view, column_view): the month grid is this page's view
  const layout = params.get("layout") || "month_view";
  const $ = (id) => document.getElementById(id);
  const narrow = () => matchMedia("(max-width: 600px)").matches;
  const state = {
    // 12 or 24 hours: the visitor's locale decides until they choose
    hour12: new Intl.DateTimeFormat(undefined, { hour: "numeric" }).resolvedOptions().hour12 !== false,
    length: Number(params.get("duration")) || data.lengths[0],
    month: null,
    day: null,
    slot: null,
    days: {},
    parentReady: false,
    loaded: false,
    linkReadySent: false,
    // the booking being moved or cancelled: { uid, email, booking }
    manage: null,
  };

  // --- embed protocol (page -> parent): {originator:"CAL", type, namespace, fullType, data}
  function post(type, payload) {
    if (!embedded) return;
    window.parent.postMessage({
      originator: "CAL",
      type,
      namespace,
      fullType: `CAL:${namespace}:${type}`,
      data: payload || {},
    }, "*");
  }
  let lastSize = null;
  function sizeChanged(first) {
    const main = document.querySelector("main");
    const style = getComputedStyle(main);
    const height = first ? document.documentElement.scrollHeight : Math.ceil(
      main.getBoundingClientRect().height + parseFloat(style.marginTop) + parseFloat(style.marginBottom),
    );
    const width = first
      ? document.documentElement.scrollWidth
      : Math.ceil(main.getBoundingClientRect().width);
    const key = `${height}x${width}`;
    if (key === lastSize) return;
    lastSize = key;
    post("__dimensionChanged", { iframeHeight: height, iframeWidth: width, isFirstTime: first });
  }
  function maybeLinkReady() {
    if (!embedded || !state.parentReady || !state.loaded || state.linkReadySent) return;
    state.linkReadySent = true;
    document.body.style.visibility = "visible";
    post("linkReady", {});
  }
  if (embedded) {
    document.documentElement.classList.add("embedded");
    document.documentElement.dataset.embedType = embedType;
    if (embedType === "modal") {
      // as Cal's own page does: a click on the backdrop around <main> (an element that contains it)
      // or Escape asks the parent to close the modal; the parent listens for __closeIframe
      document.addEventListener("click", (event) => {
        const main = document.querySelector("main");
        if (event.target instanceof Node && event.target !== main && event.target.contains(main)) {
          post("__closeIframe", {});
        }
      });
      document.addEventListener("keydown", (event) => {
        if (event.key === "Escape") post("__closeIframe", {});
      });
    }
    window.addEventListener("message", (event) => {
      const m = event.data;
      if (!m || m.originator !== "CAL" || typeof m.method !== "string") return;
      if (m.method === "parentKnowsIframeReady") {
        state.parentReady = true;
        maybeLinkReady();
      } else if (m.method === "ui" && m.arg && m.arg.theme) {
        applyTheme(m.arg.theme);
      }
    });
  }

  function applyTheme(theme) {
    const t = theme === "auto"
      ? (matchMedia("(prefers-color-scheme: dark)").matches ? "dark" : "light")
      : theme;
    if (t === "dark" || t === "light") document.documentElement.dataset.theme = t;
  }
  applyTheme(params.get("theme") || params.get("ui.color-scheme") || "light");

  // --- dates in the visitor's zone (which the picker may change) and their clock
  let dayFmt, timeFmt;
  function formats() {
    dayFmt = new Intl.DateTimeFormat("en-CA", { timeZone: zone, year: "numeric", month: "2-digit", day: "2-digit" });
    timeFmt = new Intl.DateTimeFormat(undefined, {
      timeZone: zone,
      hour: "2-digit",
      minute: "2-digit",
      hourCycle: state.hour12 ? "h12" : "h23",
    });
  }
  formats();
  const longDay = new Intl.DateTimeFormat(undefined, {
    timeZone: "UTC",
    weekday: "long",
    month: "long",
    day: "numeric",
  });
  // each day button's accessible name: the full date
  const fullDay = new Intl.DateTimeFormat(undefined, {
    timeZone: "UTC",
    weekday: "long",
    year: "numeric",
    month: "long",
    day: "numeric",
  });
  /** Says `text` through the page's live region (screen readers announce it). */
  function announce(text) {
    $("live").textContent = "";
    setTimeout(() => ($("live").textContent = text), 50);
  }
  function monthOf(date) {
    return date.slice(0, 7);
  }
  function shiftMonth(month, by) {
    const [y, m] = month.split("-").map(Number);
    const d = new Date(Date.UTC(y, m - 1 + by, 1));
    return d.toISOString().slice(0, 7);
  }

  async function loadMonth() {
    const [y, m] = state.month.split("-").map(Number);
    // a day of margin either side: the visitor's days are not UTC days
    const start = new Date(Date.UTC(y, m - 1, 0)).toISOString().slice(0, 10);
    const end = new Date(Date.UTC(y, m, 1)).toISOString().slice(0, 10);
    $("status").textContent = "Loading times…";
    announce("Loading times…");
    try {
      const r = await fetch(
        `${base}/slots?start=${start}&end=${end}&timeZone=${
          encodeURIComponent(zone)
        }&duration=${state.length}`,
        { headers: authHeaders() },
      );
      const body = await r.json();
      if (!r.ok) throw new Error(body.error ? body.error.message : "failed");
      state.days = {};
      for (const [day, list] of Object.entries(body.data)) {
        if (monthOf(day) === state.month) state.days[day] = list;
      }
      $("status").textContent = Object.keys(state.days).length ? "" : "No open times this month.";
      announce(Object.keys(state.days).length ? `${Object.keys(state.days).length} days with open times` : "No open times this month.");
      renderDays();
      if (!state.loaded) {
        state.loaded = true;
        maybeLinkReady();
        post("availabilityLoaded", { eventId: data.id, eventSlug: data.slug });
      }
    } catch (error) {
      $("status").textContent = "The times could not be loaded.";
      $("page-error").textContent = "The times could not be loaded. Please try again in a moment.";
      if (!state.loaded) {
        post("linkFailed", {
          code: String(error.status || 500),
          msg: String(error.message),
          data: { url: location.href },
        });
      }
    }
  }

  function renderLengths() {
    const box = $("lengths");
    box.innerHTML = "";
    if (data.lengths.length < 2) return;
    for (const len of data.lengths) {
      const b = document.createElement("button");
      b.type = "button";
      b.textContent = `${len} min`;
      b.className = len === state.length ? "chip on" : "chip";
      b.setAttribute("aria-pressed", String(len === state.length));
      b.dataset.length = String(len);
      b.onclick = () => {
        state.length = len;
        state.day = null;
        $("length-shown").textContent = `${len} min`;
        renderLengths();
        box.querySelector(`[data-length="${len}"]`).focus();
        loadMonth();
      };
      box.appendChild(b);
    }
  }

  /** The month as a grid of numbered days (Monday first): open days are buttons, the others disabled. */
  function renderDays() {
    $("month-label").textContent = new Intl.DateTimeFormat(undefined, {
      timeZone: "UTC",
      month: "long",
      year: "numeric",
    }).format(new Date(`${state.month}-01T00:00:00Z`));
    const days = $("days");
    days.innerHTML = "";
    const [y, m] = state.month.split("-").map(Number);
    const first = new Date(Date.UTC(y, m - 1, 1));
    const count = new Date(Date.UTC(y, m, 0)).getUTCDate();
    for (let i = 0; i < (first.getUTCDay() + 6) % 7; i++) days.appendChild(document.createElement("span"));
    for (let n = 1; n <= count; n++) {
      const day = `${state.month}-${String(n).padStart(2, "0")}`;
      const open = Boolean(state.days[day] && state.days[day].length);
      const b = document.createElement("button");
      b.type = "button";
      b.textContent = String(n);
      b.dataset.day = day;
      const name = fullDay.format(new Date(`${day}T12:00:00Z`));
      b.setAttribute("aria-label", open ? name : `${name}, no open times`);
      if (open) {
        b.className = day === state.day ? "day on" : "day";
        b.setAttribute("aria-pressed", String(day === state.day));
        b.onclick = () => chooseDay(day);
      } else {
        b.className = "closed";
        b.disabled = true;
      }
      days.appendChild(b);
    }
    renderTimes();
  }

  /** A day chosen: its times beside the month (below it on a phone, scrolled to), the first time focused. */
  function chooseDay(day) {
    state.day = day;
    renderDays();
    post("__routeChanged", {});
    const column = document.querySelector(".times-column");
    if (narrow()) column.scrollIntoView({ block: "start" });
    const firstTime = $("times").querySelector("button");
    (firstTime || $("times-label")).focus({ preventScroll: !narrow() });
    announce(`${longDay.format(new Date(`${day}T12:00:00Z`))}: ${(state.days[day] || []).length} times`);
  }

  function renderTimes() {
    const box = $("times");
    box.innerHTML = "";
    $("times-label").textContent = state.day
      ? longDay.format(new Date(`${state.day}T12:00:00Z`))
      : "Choose a day";
    for (const slot of state.days[state.day] || []) {
      const b = document.createElement("button");
      b.type = "button";
      b.className = state.slot && state.slot.start === slot.start ? "time on" : "time";
      b.setAttribute("aria-pressed", String(Boolean(state.slot && state.slot.start === slot.start)));
      b.dataset.start = slot.start;
      b.textContent = timeFmt.format(new Date(slot.start)) +
        (slot.seatsRemaining !== undefined ? ` · ${slot.seatsRemaining} left` : "");
      b.onclick = () => choose(slot);
      box.appendChild(b);
    }
  }

  /** The time-zone picker (every zone the browser knows, the visitor's first) and the 12/24-hour toggle. */
  function renderSettings() {
    const picker = $("zone-picker");
    const zones = typeof Intl.supportedValuesOf === "function" ? Intl.supportedValuesOf("timeZone") : [];
    for (const z of [zone, ...zones.filter((z) => z !== zone)]) {
      const option = document.createElement("option");
      option.value = option.textContent = z;
      picker.appendChild(option);
    }
    picker.value = zone;
    picker.onchange = () => {
      zone = picker.value;
      $("zone").textContent = zone;
      formats();
      state.day = null;
      state.slot = null;
      loadMonth();
    };
    const clock = () => {
      $("fmt-12").setAttribute("aria-pressed", String(state.hour12));
      $("fmt-24").setAttribute("aria-pressed", String(!state.hour12));
    };
    for (const [id, twelve] of [["fmt-12", true], ["fmt-24", false]]) {
      $(id).onclick = () => {
        state.hour12 = twelve;
        formats();
        clock();
        renderTimes();
      };
    }
    clock();
  }

  const SCREENS = ["pick", "form", "move", "cancel", "done"];
  function show(screen) {
    for (const id of SCREENS) $(id).hidden = id !== screen;
    $("page-error").textContent = "";
    post("__routeChanged", {});
  }

  function when(b) {
    return `${longDay.format(new Date(`${dayFmt.format(new Date(b.start))}T12:00:00Z`))} ${
      timeFmt.format(new Date(b.start))
    } (${zone})`;
  }

  function choose(slot) {
    state.slot = slot;
    renderTimes();
    const text = `${longDay.format(new Date(`${state.day}T12:00:00Z`))}, ${
      timeFmt.format(new Date(slot.start))
    } (${zone}), ${state.length} min`;
    if (state.manage) {
      $("move-chosen").textContent = `Move ${state.manage.booking.title} to ${text}`;
      show("move");
      $("f-reason").focus();
    } else {
      $("chosen").textContent = text;
      show("form");
      $("f-name").focus();
    }
    announce(text);
  }

  function authHeaders() {
    const token = params.get("token");
    return token ? { authorization: `Bearer ${token}` } : {};
  }

  async function call(method, path, body) {
    const r = await fetch(base + path, {
      method,
      headers: { ...(body ? { "content-type": "application/json" } : {}), ...authHeaders() },
      body: body ? JSON.stringify(body) : undefined,
    });
    const answer = await r.json();
    return { ok: r.ok, status: r.status, data: answer.data, error: answer.error };
  }

  /** The input a refusal's details.field names (attendee.email, bookingFieldsResponses.<slug>, ...). */
  function inputFor(field) {
    const known = {
      "attendee.name": "f-name",
      "attendee.email": "f-email",
      "attendee.phoneNumber": "f-phone",
      "guests": "f-guests",
      "location": "f-location",
      "bookingFieldsResponses.notes": "f-notes",
    };
    const id = known[field] || (String(field).startsWith("bookingFieldsResponses.")
      ? `f-${field.slice("bookingFieldsResponses.".length)}`
      : null);
    return id ? $(id) : null;
  }

  /** What a refusal means, in plain words: by the field it concerns, or by its code. */
  function plainWords(error) {
    const details = error.details || {};
    const byField = {
      "attendee.name": "Please enter your name.",
      "attendee.email": "Please enter an email address we can write to, such as name@example.com.",
      "attendee.phoneNumber": "Please enter a phone number, such as +44 20 7946 0958.",
      "guests": "Guests must be email addresses, separated by commas.",
    };
    if (byField[details.field]) return byField[details.field];
    if (String(details.field || "").startsWith("bookingFieldsResponses.")) {
      return /one of/.test(error.message) ? "Please choose one of the options." : "Please fill this in.";
    }
    const byCode = {
      taken: "That time was just taken. Please go back and choose another.",
      "too-soon": "That time is too soon to book. Please go back and choose a later one.",
      guest: "Please sign in to book this session.",
      over: "You have booked as many of these sessions as your plan allows.",
      "not-included": "Your plan does not include this session.",
      unpaid: "This session needs a payment first.",
    };
    return byCode[details.code] || error.message;
  }

  /** Clears what an earlier refusal marked beside the fields. */
  function clearFieldErrors() {
    for (const note of document.querySelectorAll(".field-error")) note.remove();
    for (const input of document.querySelectorAll("[aria-invalid]")) {
      input.removeAttribute("aria-invalid");
      input.removeAttribute("aria-describedby");
    }
  }

  /** A refusal shown beside the field it concerns (focused), else in the form's alert line. */
  function showRefusal(error, errorLine) {
    const words = plainWords(error);
    const input = error.details ? inputFor(error.details.field) : null;
    if (!input) throw new Error(words);
    const note = document.createElement("p");
    note.className = "field-error";
    note.id = `${input.id}-error`;
    note.textContent = words;
    input.insertAdjacentElement("afterend", note);
    input.setAttribute("aria-invalid", "true");
    input.setAttribute("aria-describedby", note.id);
    input.focus();
    $(errorLine).textContent = words;
  }

  /**
   * What bookingSuccessfulV2 and rescheduleBookingSuccessfulV2 carry (Cal's field list). A paid
   * booking is announced once its payment made it, so no payment is ever still required.
   */
  function successData(bookings) {
    const b = bookings[0];
    return {
      uid: b.uid,
      title: b.title,
      startTime: b.start,
      endTime: b.end,
      eventTypeId: b.eventTypeId,
      status: b.status.toUpperCase(),
      paymentRequired: false,
      isRecurring: bookings.length > 1,
      ...(bookings.length > 1
        ? { allBookings: bookings.map((x) => ({ startTime: x.start, endTime: x.end })) }
        : {}),
      ...(b.meetingUrl ? { videoCallUrl: b.meetingUrl } : {}),
    };
  }

  /** The done screen for a booking made or moved; it offers moving or cancelling it. */
  function done(title, bookings, email, note) {
    const b = bookings[0];
    $("done-title").textContent = title;
    $("done-when").textContent = `${b.title} · ${when(b)}`;
    $("done-note").textContent = note !== undefined
      ? note
      : b.meetingUrl
      ? `Meeting room: ${b.meetingUrl}`
      : "";
    state.manage = b.status === "accepted" || b.status === "pending"
      ? { uid: b.uid, email, booking: b }
      : null;
    $("done-actions").hidden = !state.manage;
    show("done");
    $("done-title").focus();
    announce(title);
  }

  /** Runs a screen's action with its button held down; a failure is shown in the screen's error line. */
  async function acting(button, errorLine, run) {
    $(button).disabled = true;
    $(errorLine).textContent = "";
    clearFieldErrors();
    try {
      await run();
    } catch (error) {
      $(errorLine).textContent = error.message;
    } finally {
      $(button).disabled = false;
    }
  }

  async function submit(event) {
    event.preventDefault();
    const form = new FormData($("form"));
    const responses = {};
    for (const f of data.formFields) {
      const v = form.get(f.slug);
      if (v !== null && v !== "") responses[f.slug] = v;
    }
    const notes = form.get("notes");
    if (notes) responses.notes = notes;
    const guests = String(form.get("guests") || "").split(/[\s,;]+/).filter(Boolean);
    const body = {
      start: new Date(state.slot.start).toISOString(),
      eventTypeId: data.id,
      lengthInMinutes: state.length,
      attendee: {
        name: form.get("name"),
        email: form.get("email"),
        timeZone: zone,
        language: (navigator.language || "en").slice(0, 2),
        phoneNumber: form.get("phone") || undefined,
      },
      bookingFieldsResponses: responses,
      metadata: {},
      ...(guests.length ? { guests } : {}),
      ...(form.get("location") ? { location: form.get("location") } : {}),
    };
    await acting("submit", "form-error", async () => {
      const r = await call("POST", "/bookings", body);
      if (r.status === 402 && data.checkout) {
        // no credit yet: pay first; the provider's page sends the visitor back here with ?paid=<session>
        const c = await call("POST", "/checkout", body);
        if (!(c.ok && c.data && c.data.url)) throw new Error(c.error ? c.error.message : "Checkout failed.");
        if (embedded) {
          // the embedding page stays: a provider's checkout refuses to be framed, so it gets a window of
          // its own, and this frame announces the booking the payment makes (bookingSuccessfulV2)
          const payment = window.open(c.data.url, "_blank");
          if (payment) return await awaitPayment(c.data.id, payment);
        }
        // standalone (or the window was blocked): the provider's page takes this one's place
        (embedded ? window.top : window).location.href = c.data.url;
        return;
      }
      if (!r.ok) {
        if (r.error) return showRefusal(r.error, "form-error");
        throw new Error("The booking could not be made. Please try again.");
      }
      const bookings = Array.isArray(r.data) ? r.data : [r.data];
      done(
        bookings[0].status === "pending" ? "Requested: the host will confirm." : "Booked.",
        bookings,
        body.attendee.email,
      );
      post("bookingSuccessfulV2", successData(bookings));
      if (data.successRedirectUrl) (embedded ? window.top : window).location.href = data.successRedirectUrl;
    });
  }

  async function move(event) {
    event.preventDefault();
    const m = state.manage;
    await acting("move-submit", "move-error", async () => {
      const r = await call("POST", `/bookings/${encodeURIComponent(m.uid)}/reschedule`, {
        start: new Date(state.slot.start).toISOString(),
        email: m.email,
        reschedulingReason: $("f-reason").value || undefined,
      });
      if (!r.ok) throw new Error(r.error ? plainWords(r.error) : "The booking could not be moved.");
      done("Rescheduled.", [r.data], m.email);
      post("rescheduleBookingSuccessfulV2", successData([r.data]));
    });
  }

  async function cancel(event) {
    event.preventDefault();
    const m = state.manage;
    await acting("cancel-submit", "cancel-error", async () => {
      const r = await call("POST", `/bookings/${encodeURIComponent(m.uid)}/cancel`, {
        email: m.email,
        cancellationReason: $("f-cancel-reason").value || undefined,
      });
      if (!r.ok) throw new Error(r.error ? r.error.message : "The booking could not be cancelled.");
      const b = r.data;
      done("Cancelled.", [b], m.email, "");
      const host = b.hosts[0] || {};
      post("bookingCancelled", {
        booking: {
          uid: b.uid,
          title: b.title,
          startTime: b.start,
          endTime: b.end,
          status: b.status.toUpperCase(),
        },
        organizer: { name: host.name, email: host.email, timeZone: host.timeZone },
        eventType: { id: b.eventTypeId, slug: b.eventType.slug, title: data.title },
      });
    });
  }

  function toReschedule() {
    $("notice").hidden = false;
    $("notice").textContent = `Rescheduling ${state.manage.booking.title}, now ${when(state.manage.booking)}`;
    state.day = null;
    show("pick");
    renderDays();
  }

  function toCancel() {
    $("cancel-when").textContent = `${state.manage.booking.title} · ${when(state.manage.booking)}`;
    show("cancel");
  }

  /** ?rescheduleUid= or ?cancelUid= with the attendee's ?email=: load that booking to act on it. */
  async function openManaged(uid, then) {
    const email = params.get("email") || "";
    const r = await call("GET", `/bookings/${encodeURIComponent(uid)}?email=${encodeURIComponent(email)}`);
    if (!r.ok) {
      $("page-error").textContent = r.error ? r.error.message : "The booking could not be found.";
      return;
    }
    state.manage = { uid, email, booking: r.data };
    then();
  }

  const pause = (ms) => new Promise((resolve) => setTimeout(resolve, ms));

  /** The payment's state: 404 while the provider's event is on its way; processing while it books. */
  async function paymentState(session) {
    const r = await call("GET", `/payments/${encodeURIComponent(session)}`);
    return r.ok ? r.data : null;
  }

  /** Shows what a settled payment came to, and announces the booking it made. */
  function paymentSettled(p) {
    if (p.status === "booked" && p.booking) {
      const b = p.booking;
      done(
        b.status === "pending" ? "Paid. The host will confirm your booking." : "Paid and booked.",
        [b],
        b.attendees[0].email,
      );
      post("bookingSuccessfulV2", successData([b]));
    } else if (p.status === "unavailable") {
      show("pick");
      $("notice").hidden = false;
      $("notice").textContent =
        "Paid, but the time was taken meanwhile. Your payment is kept: choose another time and book it.";
    } else {
      show("done");
      $("done-title").textContent = "Paid, but the booking could not be made. Please contact us.";
    }
  }

  /** Back from the payment provider with ?paid=<session>: wait for the booking the payment makes. */
  async function paidReturn(session) {
    show("done");
    $("done-title").textContent = "Confirming your payment…";
    for (let i = 0; i < 60; i++) {
      const p = await paymentState(session);
      if (p && p.status !== "processing") return paymentSettled(p);
      await pause(500);
    }
    $("done-title").textContent = "The payment has not been confirmed yet. Reload this page in a moment.";
  }

  /**
   * Embedded: the checkout runs in the window `payment`; this frame waits for its outcome. Once that
   * window is closed, one more answer decides (the status route asks the provider itself when its
   * event has not come): a payment that never happened booked nothing.
   */
  async function awaitPayment(session, payment) {
    show("done");
    $("done-title").textContent = "Complete the payment in the window that opened.";
    $("done-when").textContent = $("done-note").textContent = "";
    $("done-actions").hidden = true;
    for (let settling = 0; settling < 20;) {
      const closed = payment.closed;
      const p = await paymentState(session);
      if (p && p.status !== "processing") {
        if (!payment.closed) payment.close();
        return paymentSettled(p);
      }
      if (closed) {
        if (!p) break;
        settling++; // closed while the booking is being made: give it a moment
      }
      await pause(closed ? 500 : 1500);
    }
    show("pick");
    $("notice").hidden = false;
    $("notice").textContent = "The payment was not completed: nothing was booked.";
  }

  $("prev").onclick = () => {
    state.month = shiftMonth(state.month, -1);
    state.day = null;
    loadMonth();
  };
  $("next").onclick = () => {
    state.month = shiftMonth(state.month, 1);
    state.day = null;
    loadMonth();
  };
  $("back").onclick = () => show("pick");
  $("move-back").onclick = () => show("pick");
  $("form").addEventListener("submit", submit);
  $("move").addEventListener("submit", move);
  $("cancel").addEventListener("submit", cancel);
  $("to-reschedule").onclick = toReschedule;
  $("to-cancel").onclick = toCancel;
  for (const key of ["name", "email", "notes"]) {
    if (params.get(key) && $("f-" + key)) $("f-" + key).value = params.get(key);
  }

  const today = dayFmt.format(new Date());
  state.month = params.get("month") || monthOf(params.get("date") || today);
  $("zone").textContent = zone;
  document.querySelector("main").dataset.layout = layout;
  renderSettings();
  renderLengths();
  post("__iframeReady", { isPrerendering: false });
  sizeChanged(true);
  if (window.ResizeObserver) {
    new ResizeObserver(() => sizeChanged(false)).observe(document.querySelector("main"));
  }
  loadMonth();
  // the checkout window an embedded booker opened comes back here: its frame takes it from there
  const checkoutWindow = !embedded && window.opener && (params.has("paid") || params.has("checkout"));
  if (checkoutWindow) window.close();
  if (params.get("paid")) paidReturn(params.get("paid"));
  else if (params.get("rescheduleUid")) openManaged(params.get("rescheduleUid"), toReschedule);
  else if (params.get("cancelUid")) openManaged(params.get("cancelUid"), toCancel);
  else if (params.get("checkout") === "cancelled") {
    $("notice").hidden = false;
    $("notice").textContent = "The payment was cancelled: nothing was booked.";
  }
})();
