// parseDate: the one date check every API uses (record dates, management Date fields, GraphQL DateTime
// arguments, analytics timestamps). Only real calendar dates naming an instant in years 0001 to 9999.
import assert from "node:assert/strict";
import { test } from "../../helpers/test.ts";
import { parseDate } from "../../../shared/site/dates.ts";

const iso = (value: unknown) => parseDate(value)?.toISOString();

test("a date alone is its midnight UTC; a time without an offset is UTC; an offset is applied", () => {
  assert.equal(iso("2024-03-01"), "2024-03-01T00:00:00.000Z");
  assert.equal(iso(" 2024-03-01T10:00 "), "2024-03-01T10:00:00.000Z");
  assert.equal(iso("2024-03-01 10:00:00.123+0200"), "2024-03-01T08:00:00.123Z");
  assert.equal(iso("2024-03-01T10:00:00-05:30"), "2024-03-01T15:30:00.000Z");
  assert.equal(iso(new Date("2024-03-01T00:00:00Z")), "2024-03-01T00:00:00.000Z");
});

test("impossible calendar dates and times are not dates (no rolling over into the next month)", () => {
  assert.equal(iso("2024-02-29"), "2024-02-29T00:00:00.000Z");
  assert.equal(iso("2000-02-29"), "2000-02-29T00:00:00.000Z");
  for (
    const value of [
      "2023-02-29",
      "1900-02-29",
      "2024-02-30",
      "2024-04-31",
      "2024-13-01",
      "2024-00-10",
      "2024-01-00",
    ]
  ) {
    assert.equal(iso(value), undefined, value);
  }
  for (
    const value of [
      "2024-01-01T24:00",
      "2024-01-01T10:60",
      "2024-01-01T10:00:60",
      "2024-01-01T10:00+15:00",
      "2024-01-01T10:00+01:75",
    ]
  ) {
    assert.equal(iso(value), undefined, value);
  }
});

test("only instants in years 0001 to 9999 are dates, whatever the offset", () => {
  assert.equal(iso("0001-01-01"), "0001-01-01T00:00:00.000Z");
  assert.equal(iso("9999-12-31T23:59:59Z"), "9999-12-31T23:59:59.000Z");
  assert.equal(iso("9999-12-31T23:59:59+14:00"), "9999-12-31T09:59:59.000Z");
  for (
    const value of [
      "0000-01-01",
      "0000-12-31T23:59:59Z",
      "0001-01-01T00:00:00+01:00",
      "9999-12-31T23:59:59-14:00",
      "99999-01-01",
      "+010000-01-01T00:00:00Z",
    ]
  ) {
    assert.equal(iso(value), undefined, value);
  }
  assert.equal(iso(new Date(Date.UTC(10000, 0, 1))), undefined);
  assert.equal(iso(new Date(NaN)), undefined);
});

test("anything but ISO 8601 text is not a date", () => {
  for (const value of ["March 1, 2024", "2024", "2024-3-1", "20240301", "", 20240301, null, undefined, {}]) {
    assert.equal(iso(value), undefined, String(value));
  }
});
