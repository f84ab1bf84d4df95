// The server's own lookups of members (service role): whose handle, DID or address this is. Reads of
// other people for a reader go through network_people() as that reader instead.
import type { Db } from "../../../shared/db.ts";

export interface MemberRow {
  id: string;
  username: string | null;
  network_did: string | null;
  email: string;
  display_name: string;
  suspended_at: Date | null;
}

const columns = (db: Db) => db`id, username, network_did, email, display_name, suspended_at`;

export async function memberById(db: Db, id: string): Promise<MemberRow | undefined> {
  if (!/^[0-9a-f-]{36}$/i.test(id)) return undefined;
  const [row] = await db<MemberRow[]>`select ${columns(db)} from public.profiles where id = ${id}`;
  return row;
}

/** By handle name (username, or `m` + twelve hex digits of the id). */
export async function memberByName(db: Db, name: string): Promise<MemberRow | undefined> {
  const [row] = await db<MemberRow[]>`
    select ${columns(db)} from public.profiles where id = public.network_user_of_name(${name})`;
  return row;
}

export async function memberByPlcDid(db: Db, did: string): Promise<MemberRow | undefined> {
  const [row] = await db<MemberRow[]>`select ${columns(db)} from public.profiles where network_did = ${did}`;
  return row;
}

export async function memberByEmail(db: Db, email: string): Promise<MemberRow | undefined> {
  const [row] = await db<MemberRow[]>`
    select ${columns(db)} from public.profiles where email = ${email.trim().toLowerCase()}`;
  return row;
}
