// The meeting room page /book/video/<uid>: the booking's details, when the room opens and closes, who
// is in it, and joining, leaving and (for a signed-in host) ending. The scheduling function serves it
// with the room as its calls answer it; web/pages/book/room.js keeps it current.
import { escapeHtml as esc, scriptJson } from "../../../shared/html.ts";
import { BASE_STYLE, pageScript } from "./booker.ts";

/** What the page is given: the room as GET /book/video/<uid>/state answers it (wire.ts roomOut). */
export interface RoomData {
  uid: string;
  title: string;
  description: string | null;
  start: string;
  end: string;
  state: string;
  hosts: { name: string }[];
  attendees: { name: string }[];
  [more: string]: unknown;
}

export async function renderRoomPage(room: RoomData): Promise<string> {
  const people = [...room.hosts, ...room.attendees].map((p) => esc(p.name)).join(", ");
  return `<!doctype html>
<html lang="en" data-theme="light">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<meta name="robots" content="noindex">
<title>${esc(room.title)} · meeting room</title>
<style>${BASE_STYLE}
  #state { font-weight: 600; }
  #people li { margin: 2px 0; }
  #people .away { color: var(--muted); }
</style>
</head>
<body>
<main>
  <h1>${esc(room.title)}</h1>
  <p id="when" class="muted"><time datetime="${esc(room.start)}">${
    esc(room.start)
  }</time> – <time datetime="${esc(room.end)}">${esc(room.end)}</time></p>
  <p class="muted">With ${people}</p>
  ${room.description ? `<p id="notes">${esc(room.description)}</p>` : ""}
  <p id="state" aria-live="polite"></p>
  <form id="join" hidden>
    <label for="f-name">Your name</label><input id="f-name" name="name" autocomplete="name">
    <div id="email-row"><label for="f-email">The email address you booked or were invited with</label>
    <input id="f-email" name="email" type="email" autocomplete="email"></div>
    <p id="join-error" class="error"></p>
    <div class="row"><button type="submit" id="join-button" class="primary">Join the meeting</button></div>
  </form>
  <section id="inside" hidden>
    <p id="you"></p>
    <h2>In the room</h2>
    <ul id="people"></ul>
    <div class="row"><button type="button" id="leave">Leave</button><button type="button" id="end" hidden>End the meeting for everyone</button></div>
  </section>
</main>
<script id="room-data" type="application/json">${scriptJson(room)}</script>
<script>${await pageScript("room.js")}</script>
</body>
</html>`;
}
