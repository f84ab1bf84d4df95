// Scheduling bench: open slots of a 3-host round robin over a 31-day range with 500 existing bookings,
// through HTTP, against the floor of the same SQL (the one slot-data round trip) run directly. The host
// keeps the slot data it read under the held-time version, as production does (a repeated read then
// costs no slot-data round trip); the built figure asks a host that keeps nothing (ANSWER_CACHE_MB=0), what
// every read costs after a booking changed the held time.
import type { Sql } from "../shared/db.ts";
import { createKey } from "../shared/keys.ts";
import { openSlots } from "../functions/scheduling-api/domain/availability.ts";
import { buildCatalog } from "../functions/scheduling-api/domain/catalog.ts";
import { fnv31 } from "../functions/scheduling-api/domain/hosts.ts";
import { addDays, wallToUtc, weekdayOf } from "../functions/scheduling-api/domain/zones.ts";
import { loadSessionEntries } from "../functions/scheduling-api/store/event-types.ts";
import { slotData } from "../functions/scheduling-api/store/holds.ts";
import { readSiteSettings } from "../shared/site.ts";

type Measure = (label: string, run: () => Promise<unknown>) => Promise<number>;

const FROM = "2031-09-01";
const DAYS = 31;
const BOOKINGS = 500;

export async function benchScheduling(
  sql: Sql,
  { baseUrl, builtUrl }: { baseUrl: string; builtUrl: string },
  measure: Measure,
): Promise<Record<string, unknown>> {
  const catalog = buildCatalog((await readSiteSettings(sql))!, await loadSessionEntries(sql));
  const type = catalog.types.find((t) => t.slug === "team-call")!;
  // 500 bookings spread over the three hosts' working days, hourly from each host's 09:00
  const rows: { start: number; host: string }[] = [];
  for (let d = 0; d < DAYS && rows.length < BOOKINGS; d++) {
    const date = addDays(FROM, d);
    if (weekdayOf(date) > 5) continue;
    for (const { host } of type.hosts) {
      for (let k = 0; k < 8 && rows.length < BOOKINGS; k++) {
        rows.push({ start: wallToUtc(date, 9 * 60 + k * 60, host.timeZone), host: host.email });
      }
    }
  }
  for (let d = 0; rows.length < BOOKINGS; d++) {
    // weekends too, until there are 500
    const date = addDays(FROM, d);
    for (const { host } of type.hosts) {
      for (let k = 8; k < 14 && rows.length < BOOKINGS; k++) {
        rows.push({ start: wallToUtc(date, 9 * 60 + k * 60, host.timeZone), host: host.email });
      }
    }
  }
  await sql.begin(async (tx) => {
    for (const [i, r] of rows.entries()) {
      const start = new Date(r.start), end = new Date(r.start + 30 * 60_000);
      const [b] = await tx<{ id: number }[]>`
        insert into public.scheduling_bookings (uid, event_type_slug, event_type_id, title, start_at, end_at, status,
          host_emails, attendee_name, attendee_email, attendee_time_zone, ics_uid)
        values (${`bench-${i}`}, 'team-call', ${
        fnv31("team-call")
      }, 'Bench', ${start}, ${end}, 'accepted', ${[r.host]},
                'Bench', ${`bench${i}@example.com`}, 'UTC', ${`bench-${i}`})
        returning id`;
      await tx`insert into public.scheduling_holds (booking_id, host_email, during) values (${b.id}, ${r.host}, tstzrange(${start}, ${end}))`;
    }
  });
  const keys = await Promise.all(
    Array.from(
      { length: 8 },
      (_, i) => createKey(sql, { name: `bench scheduling ${i}`, kind: "scheduling" }),
    ),
  );
  let turn = 0;
  const end = addDays(FROM, DAYS - 1);
  const path =
    `${baseUrl}/api/scheduling/v2/slots?eventTypeSlug=team-call&start=${FROM}&end=${end}&timeZone=Europe/Berlin`;
  const first = await (await fetch(path, { headers: { authorization: `Bearer ${keys[0].key}` } })).json();
  const slotCount = Object.values(first.data as Record<string, unknown[]>).reduce((n, l) => n + l.length, 0);
  if (!slotCount) throw new Error(`scheduling bench: no slots (${JSON.stringify(first).slice(0, 200)})`);

  console.log(
    `bench: GET /v2/slots team-call (3-host round robin), ${DAYS} days, ${BOOKINGS} bookings, ${slotCount} slots`,
  );
  const api = await measure("api", async () => {
    const res = await fetch(path, { headers: { authorization: `Bearer ${keys[turn++ % keys.length].key}` } });
    if (!res.ok) throw new Error(`slots: HTTP ${res.status}`);
    await res.arrayBuffer();
  });
  const built = await measure("api, slot data read each time", async () => {
    const res = await fetch(path.replace(baseUrl, builtUrl), {
      headers: { authorization: `Bearer ${keys[turn++ % keys.length].key}` },
    });
    if (!res.ok) throw new Error(`slots: HTTP ${res.status}`);
    await res.arrayBuffer();
  });
  // the floor: the same one round trip of slot data, straight to the database
  const from = Date.parse(`${FROM}T00:00:00Z`), to = Date.parse(`${end}T23:59:59.999Z`);
  const margin = 86_400_000 + 60 * 60_000;
  const load = (input: Parameters<typeof slotData>[1]) => slotData(sql, input);
  const floor = await measure(
    "sql floor",
    () =>
      load({
        hosts: type.hosts.map((h) => h.host.email),
        from: new Date(from - margin),
        to: new Date(to + margin),
        slug: type.slug,
        limitsFrom: null,
        limitsTo: null,
        seated: false,
      }),
  );
  // the computation alone (data loaded once): what the function adds on top of the floor
  const data = await load({
    hosts: type.hosts.map((h) => h.host.email),
    from: new Date(from - margin),
    to: new Date(to + margin),
    slug: type.slug,
    limitsFrom: null,
    limitsTo: null,
    seated: false,
  });
  const compute = await measure(
    "slot computation",
    () =>
      openSlots(type, {
        from,
        to,
        lengthMinutes: 30,
        now: Date.parse("2031-01-01T00:00:00Z"),
        weekStart: "Monday",
      }, () => Promise.resolve(data)),
  );
  return {
    name: `scheduling slots (31-day range, 3-host round robin, ${BOOKINGS} bookings)`,
    api_ms: api,
    api_built_ms: built,
    floor_ms: floor,
    compute_ms: compute,
    slots: slotCount,
    ratio: api / floor,
    ratio_built: built / floor,
  };
}
