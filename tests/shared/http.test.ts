// HTTP pieces every function shares: the bearer token and the JSON object body.
import assert from "node:assert/strict";
import { test } from "../helpers/test.ts";
import { bearerToken, readJsonObject } from "../../shared/http.ts";

const post = (body: string, headers: Record<string, string> = {}) =>
  new Request("http://fn.test/x", { method: "POST", body, headers });

test("bearerToken: the token of Authorization: Bearer in any case with spaces around; nothing else", () => {
  assert.equal(bearerToken(post("", { authorization: "Bearer abc.def" })), "abc.def");
  assert.equal(bearerToken(post("", { authorization: "  bearer   abc  " })), "abc");
  for (const header of ["Basic abc", "Bearer", "Bearer a b", "abc"]) {
    assert.equal(bearerToken(post("", { authorization: header })), undefined, header);
  }
  assert.equal(bearerToken(new Request("http://fn.test/x?access_token=abc")), undefined);
});

test("readJsonObject: an object, {} for an empty body, and the API's own error for what is not JSON or not an object", async () => {
  const refuse = (message: string) => new RangeError(message);
  assert.deepEqual(await readJsonObject(post('{"a":1}'), refuse), { a: 1 });
  assert.deepEqual(await readJsonObject(post("  \n"), refuse), {});
  await assert.rejects(readJsonObject(post("{nope"), refuse), new RangeError("The body is not valid JSON."));
  for (const body of ["[]", "null", "42", '"text"']) {
    await assert.rejects(
      readJsonObject(post(body), refuse),
      new RangeError("The body must be a JSON object."),
      body,
    );
  }
});
