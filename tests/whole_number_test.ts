import assert from "node:assert/strict";
import { FrameworkError } from "../lib/errors.ts";
import { wholeNumber } from "../lib/whole_number.ts";

Deno.test("wholeNumber() reads digits within bounds and falls back when absent or empty", () => {
  const rule = { name: "limit", min: 1, max: 1000, fallback: 50 };
  assert.equal(wholeNumber("7", rule), 7);
  assert.equal(wholeNumber("1000", rule), 1000);
  assert.equal(wholeNumber(null, rule), 50);
  assert.equal(wholeNumber(undefined, rule), 50);
  assert.equal(wholeNumber("", rule), 50);
  assert.equal(wholeNumber("0", { name: "limit", min: 0, fallback: undefined }), 0);
  assert.equal(wholeNumber(undefined, { name: "limit", min: 0, fallback: undefined }), undefined);
});

Deno.test("wholeNumber() refuses anything but plain digits in range, saying what to send", () => {
  const rule = { name: "limit", min: 1, max: 1000, fallback: 50 };
  for (const bad of ["0", "1001", "-1", "1.5", "1e1", "0x2", " 2", "2 ", "abc", "9".repeat(16)]) {
    assert.throws(
      () => wholeNumber(bad, rule),
      (err: unknown) =>
        err instanceof FrameworkError && err.kind === "bad_input" &&
        /limit must be a whole number from 1 to 1000/.test(err.message),
      bad,
    );
  }
});

Deno.test("wholeNumber() with emptyIsAbsent false refuses an empty text", () => {
  assert.throws(
    () =>
      wholeNumber("", {
        name: "--limit",
        min: 1,
        max: 1000,
        fallback: undefined,
        emptyIsAbsent: false,
      }),
    /--limit must be a whole number from 1 to 1000, got ""/,
  );
});
