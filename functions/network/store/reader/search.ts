// Actor search among the people the reader may see (network_find's policy decides), by the words of
// their handle name and display name, each word a prefix; ordered by handle name.
import type { Db } from "../../../../shared/db.ts";

/** The query's words as a tsquery of prefixes, or undefined when nothing searchable is left. */
export function prefixQuery(q: string): string | undefined {
  const words = q.toLowerCase().replace(/@/g, "").split(/[^\p{L}\p{N}]+/u).filter(Boolean).slice(0, 8);
  return words.length ? words.map((w) => `${w}:*`).join(" & ") : undefined;
}

export async function searchPeople(
  db: Db,
  q: string,
  options: { limit: number; after?: { name: string; id: string } },
): Promise<{ person_id: string; sort_name: string }[]> {
  const query = prefixQuery(q);
  if (!query) return [];
  return await db<{ person_id: string; sort_name: string }[]>`
    select f.person_id, f.sort_name from public.network_find f
    where f.names @@ to_tsquery('simple', ${query})
      and (f.sort_name, f.person_id) > (${options.after?.name ?? ""}, ${options.after?.id ?? "00000000-0000-0000-0000-000000000000"}::uuid)
    order by f.sort_name, f.person_id limit ${options.limit + 1}`;
}
