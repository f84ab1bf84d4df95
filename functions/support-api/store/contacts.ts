// SQL of the desk's contacts. A contact's token is looked up by its SHA-256 hash only.
import type { Db } from "../../../shared/db.ts";
import { sha256Hex } from "../../../shared/ids.ts";

export interface ContactRow {
  id: number;
  person_id: string | null;
  kind: "guest" | "user" | "customer";
  verified: boolean;
  identifier: string | null;
  name: string | null;
  email: string | null;
  custom_attributes: Record<string, unknown>;
  last_path: string | null;
}

const COLUMNS = "id, person_id, kind, verified, identifier, name, email, custom_attributes, last_path";

/** The contact a client token names, or undefined (also for a token of the wrong shape). */
export async function contactByToken(db: Db, token: string): Promise<ContactRow | undefined> {
  if (!/^[0-9A-Za-z_-]{16,128}$/.test(token)) return undefined;
  const [row] = await db<ContactRow[]>`
    select ${db.unsafe(COLUMNS)} from public.support_contacts where token_hash = ${await sha256Hex(token)}`;
  return row;
}

export async function createGuest(
  db: Db,
  input: { tokenHash: string; attributes: Record<string, unknown>; identifier?: string; path?: string | null },
): Promise<ContactRow> {
  const [row] = await db<ContactRow[]>`
    insert into public.support_contacts (token_hash, kind, custom_attributes, identifier, last_path)
    values (${input.tokenHash}, ${input.identifier ? "user" : "guest"}, ${db.json(input.attributes as never)},
            ${input.identifier ?? null}, ${input.path ?? null})
    returning ${db.unsafe(COLUMNS)}`;
  return row;
}

/**
 * A signed-in person's account contact, made on first use (verified, with the profile's name and
 * address; `customer` once they have a paid order), answered with a fresh token whose hash replaces the
 * last one.
 */
export async function accountContact(
  db: Db,
  input: { personId: string; tokenHash: string; path?: string | null },
): Promise<ContactRow> {
  const [row] = await db<ContactRow[]>`
    with person as (
      select u.id, coalesce(p.email, u.email) as email, nullif(p.display_name, '') as name,
             exists (select 1 from public.storefront_orders o where o.person_id = u.id and o.status = 'paid') as bought
      from auth.users u left join public.profiles p on p.id = u.id where u.id = ${input.personId}
    )
    insert into public.support_contacts (person_id, token_hash, kind, verified, identifier, name, email, last_path)
    select id, ${input.tokenHash}, case when bought then 'customer' else 'user' end, true, id::text, name, email,
           ${input.path ?? null}
    from person
    on conflict (person_id) do update
      set token_hash = excluded.token_hash, kind = excluded.kind, name = excluded.name, email = excluded.email,
          verified = true, last_path = coalesce(excluded.last_path, support_contacts.last_path), updated_at = now(),
          last_seen_at = now()
    returning ${db.unsafe(COLUMNS)}`;
  return row;
}

export async function updateContact(
  db: Db,
  id: number,
  change: { attributes: Record<string, unknown>; identifier?: string },
): Promise<ContactRow> {
  const [row] = await db<ContactRow[]>`
    update public.support_contacts
       set custom_attributes = ${db.json(change.attributes as never)},
           identifier = coalesce(${change.identifier ?? null}, identifier),
           kind = case when ${change.identifier ?? null}::text is not null and kind = 'guest' then 'user' else kind end,
           updated_at = now(), last_seen_at = now()
     where id = ${id}
    returning ${db.unsafe(COLUMNS)}`;
  return row;
}

/**
 * Takes the contact's turn to write a line: answers true and stamps the time when the last line was at
 * least `seconds` ago; false (nothing changed) otherwise. One statement, so racing requests cannot both pass.
 */
export async function takeLineTurn(db: Db, id: number, now: Date, seconds: number): Promise<boolean> {
  const rows = await db`
    update public.support_contacts set last_line_at = ${now}
     where id = ${id} and (last_line_at is null or last_line_at <= ${now}::timestamptz - make_interval(secs => ${seconds}))
    returning id`;
  return rows.length === 1;
}

/** The desk's view of one contact (with conversations_count), or undefined. */
export async function deskContact(db: Db, id: number): Promise<Record<string, unknown> | undefined> {
  const [row] = await db<{ json: Record<string, unknown> }[]>`
    select public.support_contact_json(c) || jsonb_build_object('conversations_count',
             (select count(*) from public.support_conversations v where v.contact_id = c.id)) as json
    from public.support_contacts c where c.id = ${id}`;
  return row?.json;
}

/** One page of contacts, last seen first, with the total. */
export async function deskContacts(
  db: Db,
  page: number,
  size: number,
): Promise<{ count: number; payload: Record<string, unknown>[] }> {
  const [total] = await db<{ n: number }[]>`select count(*)::int as n from public.support_contacts`;
  const rows = await db<{ json: Record<string, unknown> }[]>`
    select public.support_contact_json(c) || jsonb_build_object('conversations_count',
             (select count(*) from public.support_conversations v where v.contact_id = c.id)) as json
    from (select * from public.support_contacts order by last_seen_at desc, id desc
          limit ${size} offset ${(page - 1) * size}) c
    order by c.last_seen_at desc, c.id desc`;
  return { count: total.n, payload: rows.map((r) => r.json) };
}

export async function contactExists(db: Db, id: number): Promise<boolean> {
  return (await db`select 1 from public.support_contacts where id = ${id}`).length === 1;
}
