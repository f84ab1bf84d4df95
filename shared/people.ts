// People: Supabase Auth users with a profile role (admin, support, member), and their JWTs.
// Deployed, Supabase Auth issues the tokens; locally `deno task token` mints one with the same claims.
import * as jose from "jose";
import type { Db } from "./db.ts";

export const ROLES = ["admin", "support", "member"] as const;
export type Role = typeof ROLES[number];

export interface Person {
  id: string;
  email: string;
  role: Role;
}

export async function ensurePerson(db: Db, email: string, role?: Role): Promise<Person> {
  const normalized = email.trim().toLowerCase();
  const [user] = await db<{ id: string }[]>`
    insert into auth.users (email) values (${normalized})
    on conflict (email) do update set updated_at = now()
    returning id`;
  const [profile] = await db<{ role: Role }[]>`
    insert into public.profiles (id, email, role) values (${user.id}, ${normalized}, ${role ?? "member"})
    on conflict (id) do update set role = coalesce(${role ?? null}, public.profiles.role), updated_at = now()
    returning role`;
  return { id: user.id, email: normalized, role: profile.role };
}

export async function mintPersonJwt(secret: string, person: Person, lifetimeSeconds = 3600 * 24 * 7): Promise<string> {
  return await new jose.SignJWT({ email: person.email, role: "authenticated", aud: "authenticated" })
    .setProtectedHeader({ alg: "HS256", typ: "JWT" })
    .setSubject(person.id)
    .setIssuedAt()
    .setExpirationTime(`${lifetimeSeconds}s`)
    .sign(new TextEncoder().encode(secret));
}

export interface PersonClaims {
  sub: string;
  email?: string;
  role?: string;
  [claim: string]: unknown;
}

/** Verifies a Supabase-style person JWT (HS256 secret, or a JWKS for asymmetric keys); undefined if invalid. */
export async function verifyPersonJwt(
  token: string,
  keys: { secret?: string; jwks?: ReturnType<typeof jose.createRemoteJWKSet> },
): Promise<PersonClaims | undefined> {
  try {
    const { payload } = keys.jwks && !isHs256(token)
      ? await jose.jwtVerify(token, keys.jwks)
      : await jose.jwtVerify(token, new TextEncoder().encode(keys.secret ?? ""), { algorithms: ["HS256"] });
    if (typeof payload.sub !== "string") return undefined;
    return payload as PersonClaims;
  } catch {
    return undefined;
  }
}

function isHs256(token: string): boolean {
  try {
    return jose.decodeProtectedHeader(token).alg === "HS256";
  } catch {
    return false;
  }
}

const remoteKeySets = new Map<string, ReturnType<typeof jose.createRemoteJWKSet>>();

/**
 * Verifies a person JWT with the site's own keys: the HS256 secret (JWT_SECRET, else the one kept in
 * site_secrets) and, when JWKS_URL is configured, its key set (fetched once per process and cached).
 */
export async function verifyPersonToken(
  site: { config: { jwksUrl?: string }; secrets: { get(name: string): Promise<string> } },
  token: string,
): Promise<PersonClaims | undefined> {
  const url = site.config.jwksUrl;
  let jwks = url ? remoteKeySets.get(url) : undefined;
  if (url && !jwks) {
    jwks = jose.createRemoteJWKSet(new URL(url));
    remoteKeySets.set(url, jwks);
  }
  return await verifyPersonJwt(token, { secret: await site.secrets.get("jwt"), jwks });
}

/** The person behind verified claims, with their role from profiles. */
export async function personFromClaims(db: Db, claims: PersonClaims): Promise<Person | undefined> {
  const [row] = await db<Person[]>`select id, email, role from public.profiles where id = ${claims.sub}`;
  return row;
}
