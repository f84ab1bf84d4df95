// The calendar invitation of a booking (RFC 5545): one VEVENT, its UID stable across moves and its
// SEQUENCE bumped by each, so calendars update the event instead of adding another.
import type { BookingRow } from "../store/bookings.ts";
import type { Catalog } from "./catalog.ts";

function stamp(d: Date): string {
  return d.toISOString().replace(/[-:]/g, "").replace(/\.\d{3}/, "");
}

/** Escapes TEXT values and folds lines at 75 octets. */
function line(name: string, value: string): string {
  const escaped = value.replace(/\\/g, "\\\\").replace(/;/g, "\\;").replace(/,/g, "\\,").replace(
    /\r?\n/g,
    "\\n",
  );
  const full = `${name}:${escaped}`;
  const bytes = new TextEncoder().encode(full);
  if (bytes.length <= 75) return full;
  const parts: string[] = [];
  let current = "";
  for (const ch of full) {
    if (new TextEncoder().encode(current + ch).length > (parts.length ? 74 : 75)) {
      parts.push(current);
      current = "";
    }
    current += ch;
  }
  parts.push(current);
  return parts.join("\r\n ");
}

export function bookingIcs(b: BookingRow, catalog: Catalog): string {
  const host = catalog.hosts.find((h) => h.email === b.host_emails[0]);
  const status = b.status === "accepted" ? "CONFIRMED" : b.status === "pending" ? "TENTATIVE" : "CANCELLED";
  const lines = [
    "BEGIN:VCALENDAR",
    "VERSION:2.0",
    "PRODID:-//Sitewire//Scheduling//EN",
    "METHOD:" + (status === "CANCELLED" ? "CANCEL" : "REQUEST"),
    "BEGIN:VEVENT",
    line("UID", b.ics_uid),
    `SEQUENCE:${b.ics_sequence}`,
    `DTSTAMP:${stamp(b.updated_at)}`,
    `DTSTART:${stamp(b.start_at)}`,
    `DTEND:${stamp(b.end_at)}`,
    line("SUMMARY", b.title),
    ...(b.description ? [line("DESCRIPTION", b.description)] : []),
    ...(b.meeting_url
      ? [line("LOCATION", b.meeting_url), line("URL", b.meeting_url)]
      : b.location
      ? [line("LOCATION", b.location)]
      : []),
    line(
      `ORGANIZER;CN=${(host?.name ?? b.host_emails[0]).replace(/[;:,"]/g, " ")}`,
      `mailto:${b.host_emails[0]}`,
    ),
    line(
      `ATTENDEE;CN=${b.attendee_name.replace(/[;:,"]/g, " ")};ROLE=REQ-PARTICIPANT`,
      `mailto:${b.attendee_email}`,
    ),
    ...b.guests.map((g) => line("ATTENDEE;ROLE=OPT-PARTICIPANT", `mailto:${g}`)),
    `STATUS:${status}`,
    "END:VEVENT",
    "END:VCALENDAR",
  ];
  return lines.join("\r\n") + "\r\n";
}
