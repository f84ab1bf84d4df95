// Query-argument readers shared by the Forms API's routes. They throw ArgumentError naming the
// argument; the routes turn it into VALIDATION_ERROR.
export class ArgumentError extends Error {
  constructor(message: string, readonly argument: string, readonly where: "query" | "body" = "query") {
    super(message);
  }
}

/** A whole number in [min, max], or the fallback when absent. */
export function intArg(
  params: URLSearchParams,
  name: string,
  range: [number, number],
  fallback: number,
): number {
  const raw = params.get(name);
  if (raw === null || raw === "") return fallback;
  if (!/^\d+$/.test(raw.trim())) {
    throw new ArgumentError(`${name} must be a whole number from ${range[0]} to ${range[1]}`, name);
  }
  const n = Number(raw);
  if (n < range[0] || n > range[1]) {
    throw new ArgumentError(`${name} must be from ${range[0]} to ${range[1]}`, name);
  }
  return n;
}

/** A comma-separated list (empty items dropped), or undefined when absent. */
export function listArg(params: URLSearchParams, name: string, max = 1000): string[] | undefined {
  const raw = params.get(name);
  if (raw === null) return undefined;
  const items = raw.split(",").map((s) => s.trim()).filter(Boolean);
  if (items.length > max) throw new ArgumentError(`${name} takes at most ${max} values`, name);
  return items;
}

const ISO = /^\d{4}-\d{2}-\d{2}(?:[T ]\d{2}:\d{2}(?::\d{2}(?:\.\d+)?)?)?(?:Z|[+-]\d{2}:?\d{2})?$/;

// What Postgres' timestamptz takes as written by the driver (four-digit years, no year 0): an instant
// outside would fail in the query instead of here.
const EARLIEST = Date.parse("0001-01-01T00:00:00Z");
const LATEST = Date.parse("9999-12-31T23:59:59.999Z");

/** An instant: ISO 8601 (UTC when no offset is given) or Unix seconds, in years 1 to 9999. */
export function instantArg(params: URLSearchParams, name: string): Date | undefined {
  const raw = params.get(name)?.trim();
  if (!raw) return undefined;
  let date: Date | undefined;
  if (/^\d{1,12}$/.test(raw)) date = new Date(Number(raw) * 1000);
  else if (ISO.test(raw) && isCalendarDay(raw.slice(0, 10))) {
    const s = raw.replace(" ", "T");
    date = new Date(
      /^\d{4}-\d{2}-\d{2}$/.test(s) ? `${s}T00:00:00Z` : /(Z|[+-]\d{2}:?\d{2})$/.test(s) ? s : `${s}Z`,
    );
  }
  if (!date || Number.isNaN(date.getTime())) {
    throw new ArgumentError(
      `${name} must be an ISO 8601 instant (2024-03-20T14:00:59Z) or Unix seconds`,
      name,
    );
  }
  if (date.getTime() < EARLIEST || date.getTime() > LATEST) {
    throw new ArgumentError(`${name} must be an instant from the year 1 to the year 9999`, name);
  }
  return date;
}

/** Whether YYYY-MM-DD names a day of the calendar (the Date parser rolls 2024-02-30 over to March). */
function isCalendarDay(ymd: string): boolean {
  const day = new Date(`${ymd}T00:00:00Z`);
  return !Number.isNaN(day.getTime()) && day.toISOString().slice(-24, -14) === ymd;
}

/** An ISO 8601 instant to the second, UTC, with the T delimiter (how Typeform writes times). */
export function isoSeconds(date: Date | string): string {
  return new Date(date).toISOString().replace(/\.\d{3}Z$/, "Z");
}
