// From what an app names a member by (a handle, a DID, or for sign-in their address) to the member.
import type { Db } from "../../shared/db.ts";
import { nameFromDid, nameFromHandle } from "./identity.ts";
import { memberByEmail, memberByName, memberByPlcDid, type MemberRow } from "./store/people.ts";

/** A handle or DID of this site's member, or undefined (somebody elsewhere, or nobody). */
export async function resolveActor(db: Db, actor: string, domain: string): Promise<MemberRow | undefined> {
  const value = actor.trim();
  if (value.startsWith("did:plc:")) return await memberByPlcDid(db, value);
  const name = value.startsWith("did:") ? nameFromDid(value, domain) : nameFromHandle(value, domain);
  return name ? await memberByName(db, name) : undefined;
}

/** createSession's identifier: a handle, a DID or the member's address. */
export async function resolveIdentifier(db: Db, identifier: string, domain: string): Promise<MemberRow | undefined> {
  return identifier.includes("@") ? await memberByEmail(db, identifier) : await resolveActor(db, identifier, domain);
}
