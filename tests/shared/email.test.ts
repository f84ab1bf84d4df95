import assert from "node:assert/strict";
import { test } from "../helpers/test.ts";
import { isEmailAddress } from "../../shared/email.ts";

test("an email address is text with one @ and a dotted domain, no white space, at most 254 characters", () => {
  for (const good of ["a@b.co", "first.last+tag@example.org", `${"a".repeat(249)}@b.co`]) {
    assert.equal(isEmailAddress(good), true, good);
  }
  for (
    const bad of [
      "a@b",
      "@b.co",
      "a@.",
      "a@b@c.de",
      "a b@c.de",
      "a@b.co\n",
      `${"a".repeat(250)}@b.co`,
      "",
      42,
      null,
      ["a@b.co"],
    ]
  ) {
    assert.equal(isEmailAddress(bad), false, JSON.stringify(bad));
  }
});
