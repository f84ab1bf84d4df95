import assert from "node:assert/strict";
import {
  jsonPathText,
  jsonProblem,
  storableText,
  unstorableParameter,
  unstorablePathSegment,
  unstorableUrlText,
} from "../../shared/input-text.ts";

Deno.test("storable text refuses the NUL character and lone surrogates, keeps everything else", () => {
  assert.deepEqual(storableText("plain, ünïcode and 😀"), true);
  assert.deepEqual(storableText("a\u0000b"), false);
  assert.deepEqual(storableText("\ud800"), false);
  assert.deepEqual(storableText("x\udc00"), false);
});

Deno.test("a JSON problem names the path of the first unstorable string or key", () => {
  assert.deepEqual(jsonProblem({ a: [1, { b: "ok" }] }), undefined);
  assert.deepEqual(jsonProblem({ a: [1, { b: "n\u0000" }] })?.path, ["a", 1, "b"]);
  assert.deepEqual(jsonProblem({ a: { "k\u0000": 1 } })?.kind, "unstorable");
  assert.deepEqual(jsonProblem({ a: { "k\u0000": 1 } })?.path, ["a"]);
});

Deno.test("a JSON problem finds nesting deeper than the limit without overflowing the stack", () => {
  let deep: unknown = "leaf";
  for (let i = 0; i < 100_000; i++) deep = [deep];
  const problem = jsonProblem(deep);
  assert.deepEqual(problem?.kind, "depth");
  assert.deepEqual(problem?.path.length, 64);
  let shallow: unknown = "leaf";
  for (let i = 0; i < 10; i++) shallow = { x: shallow };
  assert.deepEqual(jsonProblem(shallow, 10), undefined);
  assert.deepEqual(jsonProblem({ x: shallow }, 10)?.kind, "depth");
});

Deno.test("paths read the way clients write them, and query parameters are checked by name and value", () => {
  assert.deepEqual(jsonPathText(["fields", "title", "en-US"]), "fields.title.en-US");
  assert.deepEqual(jsonPathText(["lines", 2, "sku"]), "lines[2].sku");
  assert.deepEqual(jsonPathText([3, "a"]), "[3].a");
  assert.deepEqual(unstorableParameter(new URL("http://x/?a=1&b=%00")), "b");
  assert.deepEqual(unstorableParameter(new URL("http://x/?a%00=1")), "a\u0000");
  assert.deepEqual(unstorableParameter(new URL("http://x/?a=1")), undefined);
});

Deno.test("a path segment is judged as the router decodes it: NUL or a lone surrogate, encoded or not", () => {
  assert.equal(unstorablePathSegment(new URL("http://x/forms/a%00b/responses")), true);
  assert.equal(
    unstorablePathSegment(new URL("http://x/forms/%ED%A0%80")),
    false,
    "not UTF-8: kept as written",
  );
  assert.equal(unstorablePathSegment(new URL("http://x/forms/%F0%9F%98%80/%25")), false);
  assert.equal(
    unstorablePathSegment(new URL("http://x/forms/%E0%A4%A")),
    false,
    "broken encoding is kept as written",
  );
});

Deno.test("a request's URL: where it holds unstorable text, and nothing found in one without a percent sign", () => {
  assert.equal(unstorableUrlText("http://h/a/b?c=d&e=f%20g"), undefined);
  assert.equal(unstorableUrlText("http://h/entries/x?content_type=article&include=2"), undefined);
  assert.deepEqual(unstorableUrlText("http://h/a%00b/c"), { path: true, parameter: undefined });
  assert.deepEqual(unstorableUrlText("http://h/a/b?ok=1&bad=x%00y"), { path: false, parameter: "bad" });
  assert.deepEqual(unstorableUrlText("http://h/a%00/b?na%00me=1"), { path: true, parameter: "na\u0000me" });
  // what a server hands over is serialized: a raw NUL or lone surrogate given to the URL parser comes out
  // percent-encoded, so the shortcut never skips one
  const serialized = new Request("http://h/a\u0000b?q=\ud800").url;
  assert.ok(serialized.includes("%"));
  assert.deepEqual(unstorableUrlText(serialized), { path: true, parameter: undefined });
});
