// People's SQL: the site's people by id or address.
import type { Db } from "../../../shared/db.ts";
import type { Tier } from "../domain/event-types.ts";

export interface PersonRow {
  id: string;
  email: string;
  role: "admin" | "support" | "member";
  tier: Tier | null;
}

export async function personById(db: Db, id: string): Promise<PersonRow | undefined> {
  const [row] = await db<PersonRow[]>`
    select p.id, lower(p.email) as email, p.role, t.tier
      from public.profiles p left join public.person_tiers t on t.person_id = p.id
     where p.id = ${id}`;
  return row;
}

export async function personByEmail(db: Db, email: string): Promise<PersonRow | undefined> {
  const [row] = await db<PersonRow[]>`
    select p.id, lower(p.email) as email, p.role, t.tier
      from public.profiles p left join public.person_tiers t on t.person_id = p.id
     where lower(p.email) = lower(${email})
     limit 1`;
  return row;
}
