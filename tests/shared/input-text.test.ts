import assert from "node:assert/strict";
const assertEquals = assert.deepEqual;
import { jsonPathText, jsonProblem, storableText, unstorableParameter } from "../../shared/input-text.ts";

Deno.test("storable text refuses the NUL character and lone surrogates, keeps everything else", () => {
  assertEquals(storableText("plain, ünïcode and 😀"), true);
  assertEquals(storableText("a\u0000b"), false);
  assertEquals(storableText("\ud800"), false);
  assertEquals(storableText("x\udc00"), false);
});

Deno.test("a JSON problem names the path of the first unstorable string or key", () => {
  assertEquals(jsonProblem({ a: [1, { b: "ok" }] }), undefined);
  assertEquals(jsonProblem({ a: [1, { b: "n\u0000" }] })?.path, ["a", 1, "b"]);
  assertEquals(jsonProblem({ a: { "k\u0000": 1 } })?.kind, "unstorable");
  assertEquals(jsonProblem({ a: { "k\u0000": 1 } })?.path, ["a"]);
});

Deno.test("a JSON problem finds nesting deeper than the limit without overflowing the stack", () => {
  let deep: unknown = "leaf";
  for (let i = 0; i < 100_000; i++) deep = [deep];
  const problem = jsonProblem(deep);
  assertEquals(problem?.kind, "depth");
  assertEquals(problem?.path.length, 64);
  let shallow: unknown = "leaf";
  for (let i = 0; i < 10; i++) shallow = { x: shallow };
  assertEquals(jsonProblem(shallow, 10), undefined);
  assertEquals(jsonProblem({ x: shallow }, 10)?.kind, "depth");
});

Deno.test("paths read the way clients write them, and query parameters are checked by name and value", () => {
  assertEquals(jsonPathText(["fields", "title", "en-US"]), "fields.title.en-US");
  assertEquals(jsonPathText(["lines", 2, "sku"]), "lines[2].sku");
  assertEquals(jsonPathText([3, "a"]), "[3].a");
  assertEquals(unstorableParameter(new URL("http://x/?a=1&b=%00")), "b");
  assertEquals(unstorableParameter(new URL("http://x/?a%00=1")), "a\u0000");
  assertEquals(unstorableParameter(new URL("http://x/?a=1")), undefined);
});
