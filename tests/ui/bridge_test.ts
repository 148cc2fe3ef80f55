/**
 * The Use tab's bridge and the upload names, edge by edge: only `framework:run` for the page's own
 * harness with text or one plain-named file within limits, optionally `thread: true` (never a
 * thread's id).
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

Deno.test("bridgeRequest() takes thread: true (the frame's own thread), never a thread's name", () => {
  assert.deepEqual(bridgeRequest(run({ input: "hi", thread: true }), "bot"), {
    input: "hi",
    thread: true,
  });
  const bytes = new Uint8Array([1]);
  assert.deepEqual(bridgeRequest(run({ file: { name: "a.txt", bytes }, thread: true }), "bot"), {
    file: { name: "a.txt", bytes },
    thread: true,
  });
  for (const thread of ["thr_01J0000000000000000000000A", false, 1, null, {}, ["thr_x"]]) {
    const r = bridgeRequest(run({ input: "hi", thread }), "bot");
    assert.ok("error" in r, JSON.stringify(thread));
    assert.match(r.error, /thread must be true/);
  }
  for (const key of ["thread_id", "threadId", "busy"]) {
    const r = bridgeRequest(run({ input: "hi", thread: true, [key]: "thr_x" }), "bot");
    assert.ok("error" in r);
    assert.match(r.error, new RegExp(`Unknown field "${key}"`));
  }
  const other = bridgeRequest(run({ harness: "other", input: "hi", thread: true }), "bot");
  assert.ok("error" in other);
  assert.match(other.error, /may only run bot/);
  // The thread rule never lets a bad input through.
  const bad = bridgeRequest(run({ input: 3, thread: true }), "bot");
  assert.ok("error" in bad);
  assert.match(bad.error, /input must be text/);
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
