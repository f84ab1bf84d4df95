import assert from "node:assert/strict";
import { test } from "../../helpers/test.ts";
import { hmacSha256Base64, hmacSha256Hex } from "../../../shared/webhooks/sign.ts";

// RFC 4231 test case 2: key "Jefe", data "what do ya want for nothing?"
const RFC4231_HEX = "5bdcc146bf60754e6a042426089575c75a003f089d2739839dec58b964ec3843";

test("hex HMAC-SHA256 matches the RFC 4231 vector (X-Cal-Signature-256, X-Form-Signature)", async () => {
  assert.equal(await hmacSha256Hex("Jefe", "what do ya want for nothing?"), RFC4231_HEX);
});

test("base64 HMAC-SHA256 is the same digest in base64 (Typeform-Signature sha256=...)", async () => {
  const expected = btoa(String.fromCharCode(...RFC4231_HEX.match(/../g)!.map((h) => parseInt(h, 16))));
  assert.equal(await hmacSha256Base64("Jefe", "what do ya want for nothing?"), expected);
  assert.equal(expected, "W9zBRr9gdU5qBCQmCJV1x1oAPwidJzmDnexYuWTsOEM=");
});

test("signatures cover the exact bytes: whitespace changes the signature", async () => {
  const a = await hmacSha256Hex("s", '{"a":1}');
  const b = await hmacSha256Hex("s", '{"a": 1}');
  assert.notEqual(a, b);
  assert.equal(await hmacSha256Hex("s", new TextEncoder().encode('{"a":1}')), a);
});
