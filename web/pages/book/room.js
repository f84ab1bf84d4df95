// The meeting room page's script (served inline by the scheduling function). It shows the booking's
// times in the visitor's zone, counts down to the opening by the server's clock, joins (and keeps
// saying it is there while the page is open, so the room knows who is in it), leaves, and lets a
// signed-in host end the meeting. A signed-in person passes their token as ?token=.
(function () {
  "use strict";
  let room = JSON.parse(document.getElementById("room-data").textContent);
  const params = new URLSearchParams(location.search);
  const base = location.pathname.replace(/\/$/, "");
  const $ = (id) => document.getElementById(id);
  const token = params.get("token");
  const auth = token ? { authorization: `Bearer ${token}` } : {};
  const HEARTBEAT_MS = 15000, POLL_MS = 10000;
  let inside = false, email = params.get("email") || "", heartbeat = null, skew = 0;

  const zone = Intl.DateTimeFormat().resolvedOptions().timeZone || "UTC";
  const day = new Intl.DateTimeFormat(undefined, {
    weekday: "long",
    day: "numeric",
    month: "long",
    timeZone: zone,
  });
  const time = new Intl.DateTimeFormat(undefined, { hour: "2-digit", minute: "2-digit", timeZone: zone });
  const now = () => Date.now() + skew;

  async function call(method, path, body) {
    const r = await fetch(base + path, {
      method,
      headers: { ...auth, ...(body ? { "content-type": "application/json" } : {}) },
      body: body ? JSON.stringify(body) : undefined,
    });
    const answer = await r.json();
    if (!r.ok) throw Object.assign(new Error(answer.error ? answer.error.message : "failed"), { answer });
    return answer.data;
  }

  function take(next) {
    room = next;
    skew = Date.parse(room.now) - Date.now();
    render();
  }

  function stateText() {
    switch (room.state) {
      case "waiting": {
        const minutes = Math.max(1, Math.ceil((Date.parse(room.opensAt) - now()) / 60000));
        return `The room opens at ${time.format(new Date(room.opensAt))} (in ${minutes} min).`;
      }
      case "open":
        return room.startedAt ? "The meeting is on." : "The room is open: nobody is in it yet.";
      case "ended":
        return "This meeting has ended.";
      case "cancelled":
        return "This booking was cancelled: the room is closed.";
      default:
        return "The booking waits for its host's confirmation.";
    }
  }

  function render() {
    $("when").textContent = `${day.format(new Date(room.start))}, ${time.format(new Date(room.start))} – ${
      time.format(new Date(room.end))
    } (${zone})`;
    $("state").textContent = stateText();
    $("state").dataset.state = room.state;
    const open = room.state === "open";
    $("join").hidden = inside || !open;
    if (room.you) {
      $("email-row").hidden = true;
      if (!$("f-name").value) $("f-name").value = room.you.name;
    }
    $("inside").hidden = !inside || !open;
    if (inside && room.you) {
      $("you").textContent = `You are in the room as ${room.you.name} (${room.you.role}).`;
    }
    const list = $("people");
    list.innerHTML = "";
    for (const p of room.participants) {
      const li = document.createElement("li");
      li.textContent = `${p.name} · ${p.role}${p.present ? "" : " (left)"}`;
      li.className = p.present ? "here" : "away";
      list.appendChild(li);
    }
    // ending is for a signed-in host or an administrator (the server checks it again)
    $("end").hidden = !(token && room.you && (room.you.role === "host" || room.you.role === "administrator"));
    if (!open && inside) stop();
  }

  function stop() {
    inside = false;
    clearInterval(heartbeat);
    heartbeat = null;
  }

  async function join(event) {
    if (event) event.preventDefault();
    $("join-error").textContent = "";
    email = room.you ? room.you.email : $("f-email").value.trim();
    try {
      take(
        await call("POST", "/join", {
          email: email || undefined,
          name: $("f-name").value.trim() || undefined,
        }),
      );
      inside = true;
      render();
      clearInterval(heartbeat);
      heartbeat = setInterval(
        () =>
          call("POST", "/join", { email, name: room.you && room.you.name }).then(take)
            .catch(() => {}),
        HEARTBEAT_MS,
      );
    } catch (error) {
      $("join-error").textContent = error.message;
    }
  }

  $("join").addEventListener("submit", join);
  $("leave").onclick = async () => {
    stop();
    take(await call("POST", "/leave", { email }));
  };
  $("end").onclick = async () => {
    try {
      take(await call("POST", "/end"));
    } catch (error) {
      $("join-error").textContent = error.message;
    }
  };
  addEventListener("pagehide", () => {
    if (inside) {
      fetch(base + "/leave", {
        method: "POST",
        keepalive: true,
        headers: { ...auth, "content-type": "application/json" },
        body: JSON.stringify({ email }),
      });
    }
  });

  if (email) $("f-email").value = email;
  take(room);
  // the room's state moves with time (opening, the end) and with others (joins): look again now and then
  setInterval(() => {
    if (!inside) call("GET", "/state").then(take).catch(() => {});
    else render();
  }, POLL_MS);
  call("GET", "/state").then(take).catch(() => {});
})();
