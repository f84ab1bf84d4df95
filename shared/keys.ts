// API keys: `pk_<kind>_<32 base62>`. Only the SHA-256 hash is stored; lookups go by hash.
import type { Db } from "./db.ts";
import { randomBase62, sha256Hex } from "./ids.ts";

export const KEY_KINDS = [
  "delivery",
  "preview",
  "management",
  "forms",
  "scheduling",
  "storefront",
  "support",
] as const;
export type KeyKind = typeof KEY_KINDS[number];

export function isKeyKind(value: string): value is KeyKind {
  return (KEY_KINDS as readonly string[]).includes(value);
}

export interface ApiKey {
  id: string;
  name: string;
  kind: KeyKind;
  gated: boolean;
  revokedAt: Date | null;
}

const KEY_PATTERN = /^pk_([a-z]+)_([0-9A-Za-z]{32})$/;

export function generateKey(kind: KeyKind): string {
  return `pk_${kind}_${randomBase62(32)}`;
}

/** The kind a well-formed key claims; undefined for anything that is not a Sitewire key. */
export function keyKindOf(key: string): KeyKind | undefined {
  const kind = KEY_PATTERN.exec(key)?.[1];
  return kind && isKeyKind(kind) ? kind : undefined;
}

export function hashKey(key: string): Promise<string> {
  return sha256Hex(key);
}

export async function createKey(
  db: Db,
  input: { name: string; kind: KeyKind; gated?: boolean; createdBy?: string | null },
): Promise<{ key: string; id: string }> {
  const key = generateKey(input.kind);
  const [row] = await db<{ id: string }[]>`
    insert into public.api_keys (name, kind, gated, prefix, hash, created_by)
    values (${input.name}, ${input.kind}, ${input.gated ?? false}, ${key.slice(0, 12)}, ${await hashKey(key)},
            ${input.createdBy ?? null})
    returning id`;
  return { key, id: row.id };
}

export async function revokeKey(db: Db, id: string): Promise<void> {
  await db`update public.api_keys set revoked_at = now() where id = ${id} and revoked_at is null`;
}
