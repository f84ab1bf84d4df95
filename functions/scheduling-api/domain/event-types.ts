// Event types are the site's session records. A record's plain fields (title, summary, lengths, price,
// currency, host, location) and its `options` object become the type; nothing is stored twice.
import { defaultSchedule, findHost, fnv31, type Host, type Schedule } from "./hosts.ts";
import type { BookingWindow } from "./slots.ts";

export const TIERS = ["guest", "member", "supporter", "staff"] as const;
export type Tier = typeof TIERS[number];
export type Requires = "anyone" | Tier;

export type Location =
  | { type: "integration"; integration: "cal-video" }
  | { type: "link"; link: string }
  | { type: "address"; address: string }
  | { type: "phone"; phone: string }
  | { type: "attendeePhone" };

export interface BookingField {
  type: string;
  slug: string;
  label: string;
  required: boolean;
  options?: string[];
  hidden?: boolean;
}

export type Priority = "lowest" | "low" | "medium" | "high" | "highest";
export const PRIORITIES: Priority[] = ["lowest", "low", "medium", "high", "highest"];

export interface TypeHost {
  host: Host;
  mandatory: boolean;
  priority: Priority;
  schedule: Schedule | undefined;
}

export interface EventType {
  id: number;
  slug: string;
  entryId: string;
  title: string;
  description: string;
  lengths: number[];
  locations: Location[];
  bookingFields: BookingField[];
  disableGuests: boolean;
  slotInterval: number | null;
  offsetStart: number;
  minimumBookingNotice: number;
  beforeEventBuffer: number;
  afterEventBuffer: number;
  recurrence: { interval: number; occurrences: number; frequency: "weekly" | "monthly" | "yearly" } | null;
  price: number;
  currency: string;
  seatsPerTimeSlot: number | null;
  seatsShowAvailabilityCount: boolean;
  seatsShowAttendeeInfo: boolean;
  scheduleName: string | null;
  requiresConfirmation: boolean;
  confirmationPolicy: {
    type: "disabled" | "always" | "time";
    noticeThreshold?: { unit: "minutes" | "hours"; count: number };
  };
  hosts: TypeHost[];
  schedulingType: "ROUND_ROBIN" | "COLLECTIVE" | "MANAGED";
  assignAllTeamMembers: boolean;
  team: string | null;
  limitsCount: { day?: number; week?: number; month?: number; year?: number };
  limitsDuration: { day?: number; week?: number };
  bookingWindow: BookingWindow | null;
  requires: Requires;
  /** the type is not offered from this tier up (an introductory session for people below it) */
  below: Tier | null;
  weekly: number | null;
  monthly: number | null;
  /** "native", or the address of an external scheduler that takes this type's bookings */
  scheduler: string;
  sku: string | null;
  form: string | null;
  customName: string | null;
  flags: {
    lockTimeZoneToggleOnBookingPage: boolean;
    hideCalendarNotes: boolean;
    hideCalendarEventDetails: boolean;
    hideOrganizerEmail: boolean;
    hidden: boolean;
    requiresBookerEmailVerification: boolean;
    disableCancelling: boolean;
    disableRescheduling: boolean;
    allowReschedulingPastBookings: boolean;
    forwardParamsSuccessRedirect: boolean;
  };
  successRedirectUrl: string | null;
}

export interface SessionEntry {
  id: string;
  fields: Record<string, Record<string, unknown>>;
}

type Raw = Record<string, unknown>;

function value(entry: SessionEntry, field: string, locale: string): unknown {
  const v = entry.fields[field];
  if (!v || typeof v !== "object") return undefined;
  return v[locale] ?? Object.values(v)[0];
}

const bool = (v: unknown) => v === true;
const int = (v: unknown): number | undefined => {
  const n = typeof v === "string" && v.trim() !== "" ? Number(v) : v;
  return typeof n === "number" && Number.isFinite(n) && n >= 0 ? Math.round(n) : undefined;
};
const text = (v: unknown): string | undefined => (typeof v === "string" && v.trim() ? v.trim() : undefined);

function tierOf(v: unknown): Tier | undefined {
  return (TIERS as readonly string[]).includes(String(v)) ? v as Tier : undefined;
}

export function parseLocation(raw: unknown): Location | undefined {
  if (raw && typeof raw === "object") {
    const l = raw as Raw;
    if (l.type === "integration") return { type: "integration", integration: "cal-video" };
    if (l.type === "link" && text(l.link)) return { type: "link", link: text(l.link)! };
    if (l.type === "address" && text(l.address)) return { type: "address", address: text(l.address)! };
    if (l.type === "phone" && text(l.phone)) return { type: "phone", phone: text(l.phone)! };
    if (l.type === "attendeePhone") return { type: "attendeePhone" };
    return undefined;
  }
  const s = text(raw);
  if (!s) return undefined;
  const lower = s.toLowerCase();
  if (lower === "video" || lower === "cal-video" || lower === "vendor-video") {
    return { type: "integration", integration: "cal-video" };
  }
  if (lower === "phone" || lower === "attendeephone") return { type: "attendeePhone" };
  if (lower.startsWith("phone:")) return { type: "phone", phone: s.slice(6).trim() };
  if (lower.startsWith("address:")) return { type: "address", address: s.slice(8).trim() };
  if (/^https?:\/\//i.test(s)) return { type: "link", link: s };
  return { type: "address", address: s };
}

/** The text a booking keeps for a location of its type (an attendee's phone: their number). */
export function locationValue(l: Location, attendeePhone?: string | null): string | null {
  switch (l.type) {
    case "integration":
      return "integrations:cal-video";
    case "link":
      return l.link;
    case "address":
      return l.address;
    case "phone":
      return l.phone;
    case "attendeePhone":
      return attendeePhone ?? null;
  }
}

/**
 * The type's location a booking names (by its text, its type, or Cal's `cal-video`), or undefined for
 * a place the type does not offer (free text a caller gave).
 */
export function namedLocation(
  type: EventType,
  text: string,
  attendeePhone?: string | null,
): Location | undefined {
  return type.locations.find((l) =>
    l.type === text || locationValue(l, attendeePhone) === text ||
    (l.type === "integration" && text === "cal-video")
  );
}

function lengthsOf(raw: unknown): number[] {
  const list = Array.isArray(raw) ? raw : raw === undefined ? [] : [raw];
  const out: number[] = [];
  for (const v of list) {
    const n = int(v);
    if (n && n > 0 && !out.includes(n)) out.push(n);
  }
  return out;
}

function platformFields(locations: Location[], disableGuests: boolean): BookingField[] {
  const fields: BookingField[] = [
    { type: "name", slug: "name", label: "Your name", required: true },
    { type: "email", slug: "email", label: "Email address", required: true },
  ];
  if (locations.length > 1) {
    fields.push({ type: "radioInput", slug: "location", label: "Location", required: false });
  }
  if (locations.some((l) => l.type === "attendeePhone")) {
    fields.push({ type: "phone", slug: "attendeePhoneNumber", label: "Phone number", required: true });
  }
  fields.push({
    type: "text",
    slug: "title",
    label: "What is this meeting about?",
    required: false,
    hidden: true,
  });
  fields.push({ type: "textarea", slug: "notes", label: "Additional notes", required: false });
  if (!disableGuests) {
    fields.push({ type: "multiemail", slug: "guests", label: "Add guests", required: false });
  }
  fields.push({
    type: "textarea",
    slug: "rescheduleReason",
    label: "Reason for reschedule",
    required: false,
    hidden: true,
  });
  return fields;
}

function formFields(raw: unknown): BookingField[] {
  if (!Array.isArray(raw)) return [];
  return raw.flatMap((f): BookingField[] => {
    if (!f || typeof f !== "object") return [];
    const r = f as Raw;
    const slug = text(r.slug) ?? text(r.id);
    if (!slug) return [];
    const field: BookingField = {
      type: text(r.type) ?? "text",
      slug,
      label: text(r.label) ?? slug,
      required: bool(r.required),
    };
    if (Array.isArray(r.options)) field.options = r.options.map(String);
    return [field];
  });
}

function bookingWindowOf(raw: unknown): BookingWindow | null {
  if (!raw || typeof raw !== "object") return null;
  const w = raw as Raw;
  if ((w.type === "calendarDays" || w.type === "businessDays") && int(w.value) !== undefined) {
    return { type: w.type, value: int(w.value)!, rolling: bool(w.rolling) };
  }
  if (w.type === "range" && Array.isArray(w.value) && w.value.length === 2) {
    const [a, b] = w.value.map((d) => d instanceof Date ? d.toISOString().slice(0, 10) : String(d));
    if (/^\d{4}-\d{2}-\d{2}$/.test(a) && /^\d{4}-\d{2}-\d{2}$/.test(b)) {
      return { type: "range", value: [a, b] };
    }
  }
  return null;
}

function limits<K extends string>(raw: unknown, keys: K[]): Partial<Record<K, number>> {
  const out: Partial<Record<K, number>> = {};
  if (!raw || typeof raw !== "object") return out;
  for (const k of keys) {
    const n = int((raw as Raw)[k]);
    if (n !== undefined) out[k] = n;
  }
  return out;
}

/** The event type of a session record; `hosts` are the site's declared hosts. */
export function eventTypeFromEntry(entry: SessionEntry, hosts: Host[], locale: string): EventType {
  const options = (value(entry, "options", locale) ?? {}) as Raw;
  const slug = text(value(entry, "slug", locale)) ?? entry.id.replace(/^session\./, "");
  const lengths = lengthsOf(options.lengths ?? value(entry, "lengths", locale));
  const def = int(options.length);
  if (def && lengths.includes(def)) lengths.sort((a, b) => (a === def ? -1 : b === def ? 1 : 0));

  const locations: Location[] = [];
  for (
    const raw of [
      value(entry, "location", locale),
      ...(Array.isArray(options.locations) ? options.locations : []),
    ]
  ) {
    const l = parseLocation(raw);
    if (l && !locations.some((x) => JSON.stringify(x) === JSON.stringify(l))) locations.push(l);
  }

  const scheduleName = text(options.schedule) ?? null;
  const named: { ref: string; mandatory: boolean; priority: Priority; schedule?: string }[] = [];
  if (options.assignAllTeamMembers === true) {
    for (const h of hosts) named.push({ ref: h.email, mandatory: false, priority: "medium" });
  } else if (Array.isArray(options.hosts)) {
    for (const h of options.hosts) {
      if (typeof h === "string") named.push({ ref: h, mandatory: false, priority: "medium" });
      else if (h && typeof h === "object") {
        const r = h as Raw;
        const priority = PRIORITIES.includes(r.priority as Priority) ? r.priority as Priority : "medium";
        named.push({
          ref: String(r.user ?? r.username ?? r.email ?? ""),
          mandatory: bool(r.mandatory),
          priority,
          schedule: text(r.schedule),
        });
      }
    }
  } else {
    for (const ref of String(value(entry, "host", locale) ?? "").split(",")) {
      if (ref.trim()) named.push({ ref, mandatory: false, priority: "medium" });
    }
  }
  const typeHosts: TypeHost[] = [];
  for (const n of named) {
    const host = findHost(hosts, n.ref);
    if (!host || typeHosts.some((t) => t.host.email === host.email)) continue;
    const wanted = n.schedule ?? scheduleName;
    const schedule = (wanted && host.schedules.find((s) => s.name === wanted)) || defaultSchedule(host);
    typeHosts.push({ host, mandatory: n.mandatory, priority: n.priority, schedule });
  }

  const rawType = String(options.schedulingType ?? "").toUpperCase().replace(/[^A-Z]/g, "");
  const schedulingType = rawType === "COLLECTIVE"
    ? "COLLECTIVE"
    : rawType === "MANAGED"
    ? "MANAGED"
    : "ROUND_ROBIN";

  const buffer = int(options.buffer) ?? 0;
  const seatsRaw = options.seats;
  const seatsPerTimeSlot = typeof seatsRaw === "object" && seatsRaw
    ? int((seatsRaw as Raw).perTimeSlot ?? (seatsRaw as Raw).seatsPerTimeSlot) ?? null
    : int(seatsRaw) ?? null;
  const seatsObj = (typeof seatsRaw === "object" && seatsRaw ? seatsRaw : {}) as Raw;

  const requiresConfirmation = bool(options.requiresConfirmation);
  let confirmationPolicy: EventType["confirmationPolicy"] = {
    type: requiresConfirmation ? "always" : "disabled",
  };
  const policy = options.confirmationPolicy as Raw | undefined;
  if (policy && typeof policy === "object" && policy.type === "time") {
    const t = (policy.noticeThreshold ?? {}) as Raw;
    confirmationPolicy = {
      type: "time",
      noticeThreshold: { unit: t.unit === "hours" ? "hours" : "minutes", count: int(t.count) ?? 0 },
    };
  } else if (
    policy && typeof policy === "object" && (policy.type === "always" || policy.type === "disabled")
  ) {
    confirmationPolicy = { type: policy.type };
  }

  const rec = options.recurrence as Raw | undefined;
  const frequency = rec && ["weekly", "monthly", "yearly"].includes(String(rec.frequency))
    ? rec.frequency
    : undefined;
  const recurrence = rec && typeof rec === "object" && frequency && int(rec.occurrences)
    ? {
      interval: int(rec.interval) || 1,
      occurrences: int(rec.occurrences)!,
      frequency: frequency as "weekly",
    }
    : null;

  const requiresRaw = String(options.requires ?? "anyone");
  const disableGuests = bool(options.disableGuests);
  const formRaw = options.form;
  return {
    id: fnv31(slug),
    slug,
    entryId: entry.id,
    title: text(value(entry, "title", locale)) ?? slug,
    description: text(value(entry, "summary", locale)) ?? "",
    lengths,
    locations,
    bookingFields: [...platformFields(locations, disableGuests), ...formFields(formRaw)],
    disableGuests,
    slotInterval: int(options.slotInterval) ?? null,
    offsetStart: int(options.offsetStart) ?? 0,
    minimumBookingNotice: int(options.notice ?? options.minimumBookingNotice) ?? 0,
    beforeEventBuffer: int(options.beforeBuffer) ?? buffer,
    afterEventBuffer: int(options.afterBuffer) ?? buffer,
    recurrence,
    price: Number(value(entry, "price", locale) ?? 0) || 0,
    currency: (text(value(entry, "currency", locale)) ?? "usd").toLowerCase(),
    seatsPerTimeSlot,
    seatsShowAvailabilityCount: seatsObj.showAvailabilityCount !== false,
    seatsShowAttendeeInfo: bool(seatsObj.showAttendeeInfo),
    scheduleName,
    requiresConfirmation: confirmationPolicy.type !== "disabled",
    confirmationPolicy,
    hosts: typeHosts,
    schedulingType,
    assignAllTeamMembers: bool(options.assignAllTeamMembers),
    team: text(options.team) ?? null,
    limitsCount: limits(options.limits, ["day", "week", "month", "year"]),
    limitsDuration: limits(options.durationLimits, ["day", "week"]),
    bookingWindow: bookingWindowOf(options.bookingWindow),
    requires: requiresRaw === "anyone" ? "anyone" : tierOf(requiresRaw) ?? "anyone",
    below: tierOf(options.below) ?? null,
    weekly: int(options.weekly) ?? null,
    monthly: int(options.monthly) ?? null,
    scheduler: text(options.scheduler) ?? "native",
    sku: text(options.sku) ?? null,
    form: typeof formRaw === "string" ? formRaw : null,
    customName: text(options.customName) ?? null,
    flags: {
      lockTimeZoneToggleOnBookingPage: bool(options.lockTimeZone ?? options.lockTimeZoneToggleOnBookingPage),
      hideCalendarNotes: bool(options.hideCalendarNotes),
      hideCalendarEventDetails: bool(options.hideCalendarEventDetails),
      hideOrganizerEmail: bool(options.hideOrganizerEmail),
      hidden: bool(options.hidden),
      requiresBookerEmailVerification: bool(options.requiresBookerEmailVerification),
      disableCancelling: bool(options.disableCancelling),
      disableRescheduling: bool(options.disableRescheduling),
      allowReschedulingPastBookings: bool(options.allowReschedulingPastBookings),
      forwardParamsSuccessRedirect: options.forwardParamsSuccessRedirect !== false,
    },
    successRedirectUrl: text(options.successRedirectUrl) ?? null,
  };
}

/** Tier order: guest < member < supporter < staff. */
export function tierRank(tier: Tier): number {
  return TIERS.indexOf(tier);
}

/** Whether a tier may book the type (its `requires` and `below`). */
export function tierAdmits(type: EventType, tier: Tier): boolean {
  if (type.requires !== "anyone" && tierRank(tier) < tierRank(type.requires)) return false;
  if (type.below && tierRank(tier) >= tierRank(type.below)) return false;
  return true;
}

export function isPaid(type: EventType): boolean {
  return type.price > 0;
}

/** A native type needs a host and a length to be booked (503 otherwise). */
export function isBookable(type: EventType): boolean {
  return type.scheduler !== "native" || (type.hosts.length > 0 && type.lengths.length > 0);
}
