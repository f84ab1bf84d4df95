// Shared pieces of the scheduling HTTP tests: a running host, callers of every kind, the envelope check.
import assert from "node:assert/strict";
import { testHost } from "../../helpers/host.ts";
import { ensurePerson, mintPersonJwt, type Role } from "../../../shared/people.ts";

export const host = await testHost();
export const api = `${host.baseUrl}/api/scheduling/v2`;

export async function call(
  method: string,
  path: string,
  token: string | null,
  body?: unknown,
  headers: Record<string, string> = {},
): Promise<{ status: number; body: any; headers: Headers }> {
  const res = await fetch(path.startsWith("http") ? path : `${api}${path}`, {
    method,
    headers: {
      ...(token ? { authorization: `Bearer ${token}` } : {}),
      ...(body === undefined ? {} : { "content-type": "application/json" }),
      ...headers,
    },
    body: body === undefined ? undefined : typeof body === "string" ? body : JSON.stringify(body),
  });
  const text = await res.text();
  let parsed: any = text;
  try {
    parsed = text ? JSON.parse(text) : undefined;
  } catch { /* not JSON: keep the text */ }
  return { status: res.status, body: parsed, headers: res.headers };
}

export function assertError(
  r: { status: number; body: any },
  status: number,
  code: string,
  detailsCode?: string,
) {
  assert.equal(r.status, status, JSON.stringify(r.body));
  assert.equal(r.body.status, "error");
  assert.equal(r.body.error.code, code);
  assert.equal(typeof r.body.error.message, "string");
  if (detailsCode !== undefined) {
    assert.equal(r.body.error.details?.code, detailsCode, JSON.stringify(r.body));
  }
}

/** A person with a JWT; `tier` sets their plan. Addresses are unique per call unless given. */
export async function person(
  role: Role = "member",
  options: { email?: string; tier?: "member" | "supporter" } = {},
) {
  const email = options.email ?? `${role}-${crypto.randomUUID().slice(0, 8)}@people.test`;
  const p = await ensurePerson(host.ctx.sql, email, role);
  if (options.tier) {
    await host.ctx.sql`insert into public.person_tiers (person_id, tier) values (${p.id}, ${options.tier})
                       on conflict (person_id) do update set tier = excluded.tier`;
  }
  return { ...p, jwt: await mintPersonJwt(await host.ctx.secrets.get("jwt"), p) };
}

/** The demo hosts' JWTs (hosts confirm and decline their bookings). */
export function hostPerson(username: "ada" | "grace" | "linus") {
  return person("member", { email: `${username}@demo.sitewire.dev` });
}

/** A Monday (UTC date) `weeks` weeks after the first Monday of 2031: each test file takes its own weeks. */
export function monday(weeks: number): string {
  return new Date(Date.UTC(2031, 0, 6 + weeks * 7)).toISOString().slice(0, 10);
}

export function addDays(date: string, days: number): string {
  const [y, m, d] = date.split("-").map(Number);
  return new Date(Date.UTC(y, m - 1, d + days)).toISOString().slice(0, 10);
}

export function guestBooking(type: string | number, start: string, extra: Record<string, unknown> = {}) {
  return {
    start,
    ...(typeof type === "number" ? { eventTypeId: type } : { eventTypeSlug: type }),
    attendee: {
      name: "Guest Person",
      email: `guest-${crypto.randomUUID().slice(0, 8)}@example.com`,
      timeZone: "Europe/Berlin",
    },
    ...extra,
  };
}
