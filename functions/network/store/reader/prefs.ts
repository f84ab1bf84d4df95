// An app's own settings for the reader, kept verbatim (network_prefs; the policy lets a member read and
// write only their own row).
import type { Db } from "../../../../shared/db.ts";

export async function preferencesOf(db: Db, viewer: string): Promise<unknown[]> {
  const [row] = await db<{ preferences: unknown[] }[]>`
    select preferences from public.network_prefs where person_id = ${viewer}::uuid`;
  return row?.preferences ?? [];
}

export async function storePreferences(db: Db, viewer: string, preferences: unknown[]): Promise<void> {
  await db`insert into public.network_prefs (person_id, preferences) values (${viewer}, ${db.json(preferences as never)})
    on conflict (person_id) do update set preferences = excluded.preferences, updated_at = now()`;
}
