// Parameters in the lexicons' string formats (did, cid, tid, nsid, record-key), checked with the
// protocol's own syntax rules (@atproto/syntax, @atproto/lex-data) before they reach SQL: a value outside
// its format is InvalidRequest, as the reference server's lexicon validation answers it.
import { isValidDid, isValidNsid, isValidRecordKey, isValidTid } from "@atproto/syntax";
import { parseCid } from "@atproto/lex-data";
import { invalidRequest } from "./errors.ts";
import { optStr, str } from "./params.ts";

type Source = Parameters<typeof str>[0];

/** The longest DID the protocol allows (2 KB). */
const MAX_DID = 2048;

function checked(name: string, format: string, value: string, valid: (v: string) => boolean): string {
  if (!valid(value)) throw invalidRequest(`${name} must be a valid ${format}`);
  return value;
}

export const didParam = (source: Source, name: string) =>
  checked(name, "did", str(source, name), (v) => v.length <= MAX_DID && isValidDid(v));

export function optDidParam(source: Source, name: string): string | undefined {
  const value = optStr(source, name);
  return value === undefined ? undefined : checked(name, "did", value, (v) => v.length <= MAX_DID && isValidDid(v));
}

export const cidParam = (source: Source, name: string) =>
  checked(name, "cid", str(source, name), (v) => {
    if (v.length > 256) return false;
    try {
      return parseCid(v).toString() === v;
    } catch {
      return false;
    }
  });

export function optTidParam(source: Source, name: string): string | undefined {
  const value = optStr(source, name);
  return value === undefined ? undefined : checked(name, "tid", value, isValidTid);
}

export const nsidParam = (source: Source, name: string) => checked(name, "nsid", str(source, name), isValidNsid);

export const recordKeyParam = (source: Source, name: string) =>
  checked(name, "record-key", str(source, name), isValidRecordKey);
