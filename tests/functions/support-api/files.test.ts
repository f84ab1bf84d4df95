// Lines with files: posted as forms (as Chatwoot's clients post them), kept through the storage interface,
// shown with signed one-hour addresses; voice notes; a withdrawn line.
import assert from "node:assert/strict";
import { test } from "../../helpers/test.ts";
import { call, desk, freshAddress, thread } from "./desk.ts";

const PNG = Uint8Array.from(atob(
  "iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mP8z8BQDwAEhQGAhKmMIQAAAABJRU5ErkJggg==",
), (ch) => ch.charCodeAt(0));

async function postForm(url: string, form: FormData, headers: Record<string, string> = {}) {
  const response = await fetch(url, { method: "POST", body: form, headers: { "x-forwarded-for": freshAddress(), ...headers } });
  return { status: response.status, body: await response.json() };
}

test("a contact's picture arrives as a form, is kept, and is served by a signed one-hour address only", async () => {
  const d = await desk();
  const t = await thread(d);
  const form = new FormData();
  form.append("content", "My screenshot");
  form.append("attachments[]", new File([PNG], "shot.png", { type: "image/png" }));
  const posted = await postForm(`${t.url}/messages`, form);
  assert.equal(posted.status, 200);
  const [file] = posted.body.attachments;
  assert.equal(file.file_type, "image");
  assert.equal(file.extension, "png");
  assert.equal(file.file_size, PNG.byteLength);
  assert.equal(file.thumb_url, file.data_url);
  const address = new URL(file.data_url);
  assert.equal(address.pathname, `/api/desk/files/${file.id}`);
  const expires = Number(address.searchParams.get("expires"));
  assert.ok(Math.abs(expires - Date.now() / 1000 - 3600) < 60);
  const fetched = await fetch(file.data_url);
  assert.equal(fetched.status, 200);
  assert.equal(fetched.headers.get("content-type"), "image/png");
  assert.deepEqual(new Uint8Array(await fetched.arrayBuffer()), PNG);
  // a changed signature, another file's id, an address past its hour: refused
  const forged = new URL(file.data_url);
  forged.searchParams.set("signature", "0".repeat(64));
  assert.equal((await call("GET", forged.toString())).status, 403);
  const other = new URL(file.data_url);
  other.pathname = `/api/desk/files/${file.id + 1}`;
  assert.equal((await call("GET", other.toString())).status, 403);
  const bare = await call("GET", `${d.root}/files/${file.id}`);
  assert.equal(bare.status, 403);
  assert.deepEqual(bare.body.errors, [bare.body.error]);
  // the desk sees the same file
  const lines = await call("GET", `${d.app}/conversations/${t.id}/messages`, { key: d.agent.key });
  const shown = lines.body.payload.find((m: any) => m.id === posted.body.id);
  assert.equal(shown.attachments[0].id, file.id);
  assert.equal((await fetch(shown.attachments[0].data_url)).status, 200);
});

test("a voice note: an audio file with its seconds, content_attributes { kind: voice, seconds }", async () => {
  const d = await desk();
  const t = await thread(d);
  const form = new FormData();
  form.append("attachments[]", new File([new Uint8Array(64)], "note.webm", { type: "audio/webm" }));
  form.append("seconds", "4.2");
  const posted = await postForm(`${t.url}/messages`, form);
  assert.equal(posted.status, 200);
  assert.equal(posted.body.content, null);
  assert.deepEqual(posted.body.content_attributes, { kind: "voice", seconds: 4.2 });
  assert.equal(posted.body.attachments[0].file_type, "audio");
  assert.equal(posted.body.attachments[0].duration, 4.2);
  assert.equal(posted.body.attachments[0].thumb_url, "");
});

test("an agent's line with a file (multipart, as Chatwoot's clients send it); too many files are 422", async () => {
  const d = await desk();
  const t = await thread(d);
  const form = new FormData();
  form.append("content", "Here is the invoice");
  form.append("message_type", "outgoing");
  form.append("attachments[]", new File(["%PDF-1.4"], "invoice.pdf", { type: "application/pdf" }));
  const posted = await postForm(`${d.app}/conversations/${t.id}/messages`, form, { api_access_token: d.agent.key });
  assert.equal(posted.status, 200);
  assert.equal(posted.body.attachments[0].file_type, "file");
  assert.equal(posted.body.attachments[0].extension, "pdf");
  const many = new FormData();
  for (let i = 0; i < 6; i++) many.append("attachments[]", new File(["x"], `f${i}.txt`, { type: "text/plain" }));
  assert.equal((await postForm(`${t.url}/messages`, many)).status, 422);
  const privateNote = new FormData();
  privateNote.append("content", "note");
  privateNote.append("private", "true");
  assert.equal((await postForm(`${d.app}/conversations/${t.id}/messages`, privateNote, { api_access_token: d.agent.key })).status, 422);
});

test("a withdrawn line keeps its place with content null and content_attributes.deleted; its files go", async () => {
  const d = await desk();
  const t = await thread(d);
  const form = new FormData();
  form.append("content", "Oops, wrong picture");
  form.append("attachments[]", new File([PNG], "wrong.png", { type: "image/png" }));
  const posted = await postForm(`${d.app}/conversations/${t.id}/messages`, form, { api_access_token: d.agent.key });
  const url = `${d.app}/conversations/${t.id}/messages/${posted.body.id}`;
  const withdrawn = await call("DELETE", url, { key: d.agent.key });
  assert.equal(withdrawn.status, 200);
  assert.equal(withdrawn.body.content, null);
  assert.equal(withdrawn.body.content_attributes.deleted, true);
  assert.deepEqual(withdrawn.body.attachments, []);
  assert.equal((await fetch(posted.body.attachments[0].data_url)).status, 404);
  const seen = await call("GET", `${t.url}/messages`);
  const line = seen.body.find((m: any) => m.id === posted.body.id);
  assert.equal(line.content, null);
  assert.equal(line.content_attributes.deleted, true);
  assert.equal((await call("DELETE", `${d.app}/conversations/${t.id}/messages/99999999`, { key: d.agent.key })).status, 404);
  assert.equal((await call("DELETE", url, {})).status, 401);
});
