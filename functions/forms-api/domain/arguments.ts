// Query-argument readers shared by the Forms API's routes. They throw ArgumentError naming the
// argument; the routes turn it into VALIDATION_ERROR.
import { parseDate } from "../../../shared/site/dates.ts";

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

/**
 * An instant: Unix seconds, or an ISO 8601 date read by the one date check every API takes (shared
 * parseDate: UTC when no offset is given, real calendar days and times only, years 1 to 9999, which is
 * also what Postgres' timestamptz takes as the driver writes it).
 */
export function instantArg(params: URLSearchParams, name: string): Date | undefined {
  const raw = params.get(name)?.trim();
  if (!raw) return undefined;
  const date = parseDate(/^\d{1,12}$/.test(raw) ? new Date(Number(raw) * 1000) : raw);
  if (!date) {
    throw new ArgumentError(
      `${name} must be an ISO 8601 instant (2024-03-20T14:00:59Z) or Unix seconds, in the years 1 to 9999`,
      name,
    );
  }
  return date;
}

/** An ISO 8601 instant to the second, UTC, with the T delimiter (how Typeform writes times). */
export function isoSeconds(date: Date | string): string {
  return new Date(date).toISOString().replace(/\.\d{3}Z$/, "Z");
}
