// The meeting room page in Chromium: a made booking's meetingUrl on a host whose clock stands at the
// booking's time. Before the opening it counts down; open, the attendee joins by the address they booked
// with, the host joins signed in (?token=), each sees the other in the room, and the host ends it for
// everyone. The events it raises are tested over HTTP (tests/functions/scheduling-api/meetings-http).
import assert from "node:assert/strict";
import { launchChromium } from "../helpers/browser.ts";
import { test } from "../helpers/test.ts";
import { testHost } from "../helpers/host.ts";
import { testSql } from "../helpers/db.ts";
import { fixedClock } from "../../shared/clock.ts";
import { createContext } from "../../shared/context.ts";
import { freePort } from "../../shared/embedded.ts";
import { ensurePerson, mintPersonJwt } from "../../shared/people.ts";
import { serveHost } from "../../web/host.ts";

const host = await testHost();
const key = await host.key("scheduling");
// a second host over the same database, its clock at the bookings' time
const clock = fixedClock("2032-07-05T07:30:00.000Z");
const port = freePort();
const roomOrigin = `http://localhost:${port}`;
serveHost(
  createContext({ ...host.ctx.config, port, publicUrl: roomOrigin, functionsUrl: roomOrigin }, {
    sql: testSql(),
    clock,
  }),
  { port, hostname: "127.0.0.1", onListen: () => {} },
);

async function book(start: string, email: string) {
  const r = await fetch(`${host.baseUrl}/api/scheduling/v2/bookings`, {
    method: "POST",
    headers: { authorization: `Bearer ${key}`, "content-type": "application/json" },
    body: JSON.stringify({
      start,
      eventTypeSlug: "intro-call",
      attendee: { name: "Anna Attendee", email, timeZone: "Europe/Berlin" },
    }),
  });
  const body = await r.json();
  assert.equal(r.status, 201, JSON.stringify(body));
  return body.data;
}

test("the room counts down before it opens; open, the attendee and the host meet, and the host ends it", async () => {
  const email = `anna-${crypto.randomUUID().slice(0, 8)}@example.com`;
  const b = await book("2032-07-05T08:00:00.000Z", email);
  const room = `${roomOrigin}/book/video/${b.uid}`;
  const ada = await ensurePerson(host.ctx.sql, "ada@demo.sitewire.dev", "member");
  const adaJwt = await mintPersonJwt(await host.ctx.secrets.get("jwt"), ada);
  const browser = await launchChromium();
  try {
    const attendee = await browser.newPage({ timezoneId: "Europe/Berlin", locale: "en-GB" });
    clock.set("2032-07-05T07:30:00.000Z");
    await attendee.goto(`${room}?email=${encodeURIComponent(email)}`);
    assert.equal(
      await attendee.locator("h1").textContent(),
      "Intro call between Ada Example and Anna Attendee",
    );
    await attendee.locator("#state[data-state=waiting]").waitFor({ timeout: 20_000 });
    assert.equal(await attendee.locator("#state").textContent(), "The room opens at 09:50 (in 20 min).");
    assert.equal(await attendee.locator("#join").isHidden(), true);
    assert.match(await attendee.locator("#when").textContent() ?? "", /10:00 – 10:15 \(Europe\/Berlin\)/);

    clock.set("2032-07-05T08:01:00.000Z");
    await attendee.reload();
    await attendee.locator("#state[data-state=open]").waitFor({ timeout: 20_000 });
    assert.equal(await attendee.locator("#state").textContent(), "The room is open: nobody is in it yet.");
    assert.equal(await attendee.locator("#f-email").inputValue(), email);
    await attendee.locator("#f-name").fill("Anna");
    await attendee.locator("#join-button").click();
    await attendee.locator("#you").filter({ hasText: "You are in the room as Anna (attendee)." }).waitFor();
    assert.equal(await attendee.locator("#end").isHidden(), true, "only a signed-in host ends it");

    clock.set("2032-07-05T08:01:30.000Z");
    const hostPage = await browser.newPage({ timezoneId: "Europe/Berlin", locale: "en-GB" });
    await hostPage.goto(`${room}?token=${adaJwt}`);
    await hostPage.locator("#state[data-state=open]").waitFor({ timeout: 20_000 });
    // signed in, once the page has asked who its token is: no address to give
    await hostPage.locator("#email-row").waitFor({ state: "hidden" });
    assert.equal(await hostPage.locator("#state").textContent(), "The meeting is on.");
    await hostPage.locator("#join-button").click();
    await hostPage.locator("#you").filter({ hasText: "(host)" }).waitFor();
    assert.deepEqual(await hostPage.locator("#people li").allTextContents(), [
      "Anna · attendee",
      "Ada Example · host",
    ]);
    await hostPage.locator("#end").click();
    await hostPage.locator("#state[data-state=ended]").waitFor();
    assert.equal(await hostPage.locator("#state").textContent(), "This meeting has ended.");
    assert.equal(await hostPage.locator("#inside").isHidden(), true);

    // a stranger's address is refused on the page, with the server's reason
    const stranger = await browser.newPage();
    const other = await book(
      "2032-07-05T08:30:00.000Z",
      `other-${crypto.randomUUID().slice(0, 8)}@example.com`,
    );
    clock.set("2032-07-05T08:31:00.000Z");
    await stranger.goto(`${roomOrigin}/book/video/${other.uid}`);
    await stranger.locator("#state[data-state=open]").waitFor({ timeout: 20_000 });
    await stranger.locator("#f-email").fill("stranger@example.com");
    await stranger.locator("#join-button").click();
    await stranger.locator("#join-error").filter({ hasText: /not one of this booking's attendees or hosts/ })
      .waitFor();

    const [row] = await host.ctx.sql<{ started: Date; ended: Date }[]>`
      select meeting_started_at as started, meeting_ended_at as ended
        from public.scheduling_bookings where uid = ${b.uid}`;
    assert.equal(row.started.toISOString(), "2032-07-05T08:01:00.000Z");
    assert.equal(row.ended.toISOString(), "2032-07-05T08:01:30.000Z");
  } finally {
    await browser.close();
  }
});
