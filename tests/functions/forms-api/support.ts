// Helpers for the forms tests: a form of the test's own (written as a published page record through the
// function's own store code, so parallel test files never share responses), the form page's response
// routes as a visitor drives them, and Forms API calls with a key.
import type { TestHost } from "../../helpers/host.ts";
import { randomBase62 } from "../../../shared/ids.ts";
import { parseDocument } from "../../../functions/forms-api/domain/document.ts";
import { formTransaction, publishForm } from "../../../functions/forms-api/store/forms.ts";

export const LOCALE = "en-US";

/** A form document body for `slug` (the front matter is written here). */
export function formText(slug: string, body: string, form: Record<string, unknown> = {}): string {
  const lines = Object.entries(form).map(([k, v]) => `  ${k}: ${JSON.stringify(v)}`);
  return `---\ntitle: Test form ${slug}\nslug: ${slug}\nkind: form-slides\n${
    lines.length ? `form:\n${lines.join("\n")}\n` : ""
  }---\n\n${body}`;
}

/** A published form page with a fresh slug; answers the slug. */
export async function makeForm(
  host: TestHost,
  prefix: string,
  body: string,
  form: Record<string, unknown> = {},
): Promise<string> {
  const slug = `${prefix}-${randomBase62(8).toLowerCase()}`;
  const doc = parseDocument(formText(slug, body, form));
  await formTransaction(host.ctx.sql, (tx) =>
    publishForm(tx, {
      doc,
      locale: LOCALE,
      id: `page.tests.${slug}`,
      path: `records/pages/tests/${slug}.md`,
      now: host.ctx.clock.now(),
    }));
  return slug;
}

/** The standard test form: every answer type, a jump, two endings, scoring. */
export const SURVEY = `# Welcome: Hi
> Hello there.

## One
name* text: Your name?
mail email: Your email?
site website: Your site?
tel phone: Your phone?
age number: Your age?
  min: 0
  max: 130

## Two
stars rating: Stars?
scale scale: Scale?
color choice: Colour?
  - Red
  - Blue
  score +2 if is "Blue"
langs choice: Languages?
  multiple: yes
  other: yes
  - Deno
  - Rust
pick dropdown: Pick one
  - Alpha
  - Beta
when date: When?
doc file: A file?
-> vip if stars = 5

## Three
note long text: Anything else?

# Thank you: Thanks

# Thank you: VIP {#vip}
`;

export interface Visitor {
  token: string;
  patch(body: unknown): Promise<Response>;
  submit(answers?: Record<string, unknown>): Promise<Response>;
  upload(ref: string, name: string, bytes: Uint8Array, type?: string): Promise<Response>;
}

/** A visitor landing on /to/<slug> (the page's first call), with query and hash as the page would send. */
export async function visit(
  host: TestHost,
  slug: string,
  options: { search?: string; hash?: string; userAgent?: string; referer?: string; address?: string } = {},
): Promise<Visitor> {
  const headers: Record<string, string> = {
    "content-type": "application/json",
    "user-agent": options.userAgent ?? "Mozilla/5.0 (X11; Linux x86_64) Test",
    // a per-test address keeps the page's per-address rate limit out of other tests' way
    "x-forwarded-for": options.address ??
      `10.9.${Math.floor(Math.random() * 250)}.${Math.floor(Math.random() * 250)}`,
  };
  const base = `${host.baseUrl}/to/${slug}/responses`;
  const res = await fetch(base, {
    method: "POST",
    headers,
    body: JSON.stringify({
      search: options.search ?? "",
      hash: options.hash ?? "",
      referer: options.referer ?? "",
    }),
  });
  if (res.status !== 201) throw new Error(`landing: ${res.status} ${await res.text()}`);
  const { token } = await res.json();
  return {
    token,
    patch: (body) => fetch(`${base}/${token}`, { method: "PATCH", headers, body: JSON.stringify(body) }),
    submit: (answers) =>
      fetch(`${base}/${token}/submit`, {
        method: "POST",
        headers,
        body: JSON.stringify(answers ? { answers } : {}),
      }),
    upload: (ref, name, bytes, type = "application/octet-stream") =>
      fetch(`${base}/${token}/files/${ref}`, {
        method: "POST",
        headers: { ...headers, "content-type": type, "x-file-name": encodeURIComponent(name) },
        body: bytes as BodyInit,
      }),
  };
}

/** A submitted response with these answers; answers its token. */
export async function respond(
  host: TestHost,
  slug: string,
  answers: Record<string, unknown>,
  options: Parameters<typeof visit>[2] = {},
) {
  const v = await visit(host, slug, options);
  const res = await v.submit(answers);
  if (res.status !== 200) throw new Error(`submit: ${res.status} ${await res.text()}`);
  return { token: v.token, result: await res.json() };
}

/** A Forms API caller with a key of its own. */
export function formsApi(host: TestHost, key: string) {
  return async (path: string, init: RequestInit = {}) => {
    const res = await fetch(`${host.baseUrl}/api${path}`, {
      ...init,
      headers: {
        authorization: `Bearer ${key}`,
        ...(init.body ? { "content-type": "application/json" } : {}),
        ...init.headers,
      },
    });
    const text = await res.text();
    return { status: res.status, headers: res.headers, body: text ? JSON.parse(text) : undefined };
  };
}

export function uniqueAddress(): string {
  return `10.${Math.floor(Math.random() * 250)}.${Math.floor(Math.random() * 250)}.${
    Math.floor(Math.random() * 250)
  }`;
}

export { randomBase62 };
