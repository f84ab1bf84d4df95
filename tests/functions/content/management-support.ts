// Shared by the cloud-mode management tests (serial batch): cloud mode for the length of one test, a
// management key whose maker is a known person, the real management client, and HTTP helpers.
import assert from "node:assert/strict";
import { createClient } from "contentful-management";
import { testHost } from "../../helpers/host.ts";
import { testSql } from "../../helpers/db.ts";
import { createKey } from "../../../shared/keys.ts";
import { ensurePerson } from "../../../shared/people.ts";

export const host = await testHost();
export const sql = testSql();
export const MANAGEMENT = "application/vnd.contentful.management.v1+json";
export const space = `${host.baseUrl}/api/content/spaces/${host.space}`;
export const env = `${space}/environments/master`;

/** A management key made by a person: createdBy and updatedBy name them. */
export async function makerKey(): Promise<{ key: string; maker: string }> {
  const person = await ensurePerson(sql, `maker-${crypto.randomUUID().slice(0, 8)}@people.test`, "admin");
  const { key } = await createKey(sql, { name: "management test key", kind: "management", createdBy: person.id });
  return { key, maker: person.id };
}

/** Runs body with the site in cloud mode, then puts git mode back (tests in this batch run one at a time). */
export async function inCloudMode(body: () => Promise<void>): Promise<void> {
  await sql`update public.site_settings set mode = 'cloud', updated_at = now()`;
  try {
    await body();
  } finally {
    await sql`update public.site_settings set mode = 'git', updated_at = now()`;
  }
}

export function managementClient(accessToken: string) {
  return createClient(
    { accessToken, host: host.host, hostUpload: host.host, insecure: true, basePath: "/api/content", retryOnError: false },
    { type: "plain", defaults: { spaceId: host.space, environmentId: "master" } },
  );
}

export async function call(
  method: string,
  url: string,
  key?: string,
  body?: unknown,
  headers: Record<string, string> = {},
) {
  const res = await fetch(url, {
    method,
    headers: { "content-type": MANAGEMENT, ...(key ? { authorization: `Bearer ${key}` } : {}), ...headers },
    body: body === undefined ? undefined : typeof body === "string" ? body : body instanceof Uint8Array ? body as BodyInit : JSON.stringify(body),
  });
  const text = await res.text();
  return { res, status: res.status, body: text ? JSON.parse(text) : undefined };
}

export function assertError(r: { status: number; body: any }, status: number, id: string) {
  assert.equal(r.status, status, JSON.stringify(r.body));
  assert.equal(r.body.sys.type, "Error");
  assert.equal(r.body.sys.id, id);
  assert.equal(typeof r.body.message, "string");
}

export function unique(prefix: string): string {
  return `${prefix}-${crypto.randomUUID().slice(0, 8)}`;
}

/** A tiny PNG of the given size (a valid header is all the dimension sniffer reads). */
export function pngBytes(width: number, height: number): Uint8Array {
  const bytes = new Uint8Array(33);
  bytes.set([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a, 0, 0, 0, 13, 0x49, 0x48, 0x44, 0x52]);
  new DataView(bytes.buffer).setUint32(16, width);
  new DataView(bytes.buffer).setUint32(20, height);
  bytes.set([8, 6, 0, 0, 0], 24);
  return bytes;
}
