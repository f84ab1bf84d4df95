// Query parameters and body fields as the lexicons type them; a bad one is InvalidRequest.
import { invalidRequest } from "./errors.ts";
import type { Call } from "./method.ts";

type Source = Call["params"] | Record<string, unknown> | undefined;

function one(source: Source, name: string): unknown {
  const value = source?.[name];
  // a repeated query key where one value is expected: the last one counts
  return Array.isArray(value) ? value[value.length - 1] : value;
}

export function optStr(source: Source, name: string): string | undefined {
  const value = one(source, name);
  if (value === undefined || value === null) return undefined;
  if (typeof value !== "string") throw invalidRequest(`${name} must be a string`);
  return value;
}

export function str(source: Source, name: string): string {
  const value = optStr(source, name);
  if (value === undefined || value === "") throw invalidRequest(`Input must have the property "${name}"`);
  return value;
}

/** Every value of a repeated query key (?uris=a&uris=b), or a body array of strings. */
export function strs(source: Source, name: string): string[] {
  const value = source?.[name];
  if (value === undefined) return [];
  const list = Array.isArray(value) ? value : [value];
  if (!list.every((v) => typeof v === "string")) throw invalidRequest(`${name} must be a list of strings`);
  return list as string[];
}

export function int(source: Source, name: string, bounds: { min: number; max: number; def: number }): number {
  const value = one(source, name);
  if (value === undefined || value === "") return bounds.def;
  const n = typeof value === "number" ? value : /^-?\d{1,9}$/.test(String(value)) ? Number(value) : NaN;
  if (!Number.isInteger(n) || n < bounds.min || n > bounds.max) {
    throw invalidRequest(`${name} must be an integer from ${bounds.min} to ${bounds.max}`);
  }
  return n;
}

export function bool(source: Source, name: string, def: boolean): boolean {
  const value = one(source, name);
  if (value === undefined || value === "") return def;
  if (value === true || value === "true") return true;
  if (value === false || value === "false") return false;
  throw invalidRequest(`${name} must be true or false`);
}
