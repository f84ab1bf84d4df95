// The one check of a date every API takes: records' dates (the import and the management writes), query
// arguments (forms' since/until, content's date filters) and analytics timestamps.

/** The instants a date may name: years 0001 to 9999 in UTC, what Postgres and ISO 8601 text both hold. */
const FIRST_INSTANT = new Date("0001-01-01T00:00:00Z").getTime();
const LAST_INSTANT = new Date("9999-12-31T23:59:59.999Z").getTime();

/**
 * A record's date (ISO 8601; a date alone or a time without an offset is UTC), for its createdAt; the
 * one check of a date every API takes. Only real calendar dates and times are dates (2024-02-30 and
 * 25:00 are not, where `new Date` would roll them over), with an offset of at most 14 hours, naming an
 * instant within years 0001 to 9999.
 */
export function parseDate(value: unknown): Date | undefined {
  if (value instanceof Date) return inRange(value.getTime()) ? value : undefined;
  if (typeof value !== "string") return undefined;
  const s = value.trim().replace(" ", "T");
  const parts = DATE_PARTS.exec(s);
  if (!parts) return undefined;
  const [, year, month, day, hour = "00", minute = "00", second = "00", , offsetHours = "00", offsetMinutes = "00"] =
    parts;
  const [y, mo, d, h, mi, sec] = [year, month, day, hour, minute, second].map(Number);
  const daysInMonth = new Date(Date.UTC(2000, mo, 0)).getUTCDate() - (mo === 2 && !isLeapYear(y) ? 1 : 0);
  if (y < 1 || mo < 1 || mo > 12 || d < 1 || d > daysInMonth || h > 23 || mi > 59 || sec > 59) return undefined;
  if (Number(offsetHours) > 14 || Number(offsetMinutes) > 59) return undefined;
  // a date alone is midnight UTC; a time without an offset is taken as UTC too (never the machine's zone)
  const iso = /^\d{4}-\d{2}-\d{2}$/.test(s)
    ? `${s}T00:00:00Z`
    : /(Z|[+-]\d{2}:?\d{2})$/.test(s)
    ? s
    : `${s}Z`;
  const date = new Date(iso);
  return inRange(date.getTime()) ? date : undefined;
}

const DATE_PARTS = /^(\d{4})-(\d{2})-(\d{2})(?:T(\d{2}):(\d{2})(?::(\d{2})(\.\d+)?)?(?:Z|[+-](\d{2}):?(\d{2}))?)?$/;

function isLeapYear(year: number): boolean {
  return (year % 4 === 0 && year % 100 !== 0) || year % 400 === 0;
}

function inRange(time: number): boolean {
  return !Number.isNaN(time) && time >= FIRST_INSTANT && time <= LAST_INSTANT;
}
