import assert from "node:assert/strict";
import { test } from "../../helpers/test.ts";
import { currencyExponent, formatMinorUnits, toMinorUnits } from "../../../shared/payments/money.ts";

test("decimal prices become exact minor units per currency", () => {
  assert.equal(toMinorUnits(19.99, "EUR"), 1999);
  assert.equal(toMinorUnits(19.5, "eur"), 1950);
  assert.equal(toMinorUnits("29", "EUR"), 2900);
  assert.equal(toMinorUnits("0.005", "EUR"), 1); // half away from zero
  assert.equal(toMinorUnits(0.1 + 0.2, "EUR"), 30); // 0.30000000000000004
  assert.equal(toMinorUnits(1500, "JPY"), 1500);
  assert.equal(toMinorUnits(1.2345, "BHD"), 1235);
  assert.equal(currencyExponent("JPY"), 0);
  assert.equal(currencyExponent("BHD"), 3);
});

test("anything but a finite non-negative amount has no minor units", () => {
  for (const bad of [-1, "-1", "1e3", 1e21, NaN, Infinity, "abc", "", null, undefined, {}, [], true]) {
    assert.equal(toMinorUnits(bad, "EUR"), undefined, `${JSON.stringify(bad)} should be refused`);
  }
});

test("minor units print with the currency's digits", () => {
  assert.equal(formatMinorUnits(1950, "EUR"), "19.50");
  assert.equal(formatMinorUnits(5, "EUR"), "0.05");
  assert.equal(formatMinorUnits(0, "EUR"), "0.00");
  assert.equal(formatMinorUnits(1500, "JPY"), "1500");
  assert.equal(formatMinorUnits(-250, "USD"), "-2.50");
});
