/**
 * The Use tab's bridge and the upload names, edge by edge: only `framework:run` for the page's own
 * harness with text or one plain-named file within limits.
 *
 * @module
 */

import assert from "node:assert/strict";
import { safeUploadName } from "../../lib/interface/uploads.ts";
import { BRIDGE_LIMITS, bridgeRequest } from "../../ui/bridge.ts";

const run = (extra: Record<string, unknown>) => ({
  type: "framework:run",
  harness: "bot",
  ...extra,
});

Deno.test("bridgeRequest() accepts text and one plain file for its own harness", () => {
  assert.deepEqual(bridgeRequest(run({ input: "hi" }), "bot"), { input: "hi" });
  const bytes = new Uint8Array([1, 2]);
  assert.deepEqual(bridgeRequest(run({ file: { name: "a.txt", bytes } }), "bot"), {
    file: { name: "a.txt", bytes },
  });
  const buffer = new Uint8Array([3]).buffer;
  assert.deepEqual(bridgeRequest(run({ file: { name: "b", bytes: buffer } }), "bot"), {
    file: { name: "b", bytes: new Uint8Array([3]) },
  });
});

Deno.test("bridgeRequest() refuses everything else, saying why", () => {
  const refused = (data: unknown, pattern: RegExp) => {
    const r = bridgeRequest(data, "bot");
    assert.ok("error" in r, JSON.stringify(r));
    assert.match(r.error, pattern);
  };
  refused(null, /not a framework:run/);
  refused([run({ input: "x" })], /not a framework:run/);
  refused({ type: "framework:result", harness: "bot" }, /Only framework:run/);
  refused(run({ harness: "other", input: "x" }), /may only run bot/);
  refused(run({ input: "x", input_file: "a" }), /Unknown field "input_file"/);
  refused(run({}), /either input .* or file/);
  refused(run({ input: "x", file: { name: "a", bytes: new Uint8Array() } }), /either input/);
  refused(run({ input: 3 }), /input must be text/);
  refused(run({ input: "x".repeat(BRIDGE_LIMITS.inputChars + 1) }), /longer than/);
  for (const name of ["../x", "a/b", "a\\b", ".env", ".framework", "", "x\0"]) {
    refused(run({ file: { name, bytes: new Uint8Array() } }), /a plain name, not a path/);
  }
  refused(run({ file: { name: "a", bytes: "text" } }), /bytes must be/);
  refused(
    run({ file: { name: "a", bytes: new Uint8Array(BRIDGE_LIMITS.fileBytes + 1) } }),
    /larger/,
  );
});

Deno.test("safeUploadName() keeps a plain last segment and refuses sensitive names", () => {
  assert.equal(safeUploadName("notes.txt"), "notes.txt");
  assert.equal(safeUploadName("../../My Report (v2).pdf"), "My-Report-v2-.pdf");
  assert.equal(safeUploadName("C:\\Users\\x\\data.csv"), "data.csv");
  assert.equal(safeUploadName("..hidden.txt"), "hidden.txt");
  for (const name of [".env", ".ENV.local", "dir/.framework", "", "///", "..", "---"]) {
    assert.throws(() => safeUploadName(name), /Refused upload name/, name);
  }
});
