/**
 * `framework serve` caps a request line as the HTTP servers cap a body (1 MiB): a longer line is
 * answered with a `bad_input` error frame naming the limit, skipped without being kept whole, and
 * serving goes on with the next line.
 *
 * @module
 */

import assert from "node:assert/strict";
import { runCli } from "../helpers/cli.ts";
import { scripted, writeHarness } from "../helpers/harness.ts";
import { tempDir } from "../helpers/temp.ts";

Deno.test("serve answers a line over 1 MiB with an error frame and goes on", async () => {
  await using home = await tempDir("fw-serve-home-");
  await using work = await tempDir("fw-serve-work-");
  const dir = await writeHarness(work.path, "served", {
    model: scripted([{ text: "first" }, { text: "second" }]),
  });
  const long = JSON.stringify({ input: "x".repeat(2 * 1024 * 1024) });
  const stdin = [JSON.stringify({ input: "one" }), long, JSON.stringify({ input: "two" })]
    .join("\n");
  const r = await runCli(["serve", dir, "--approve"], { home: home.path, stdin });
  assert.equal(r.code, 0, r.stderr);
  const frames = r.stdout.trim().split("\n").map((l) => JSON.parse(l));
  const shown = frames.filter((f) => f.frame !== "trace").map((f) =>
    f.frame === "error" ? `error ${f.error.kind}` : f.frame === "run_result" ? f.status : f.frame
  );
  assert.deepEqual(shown, [
    "run_accepted",
    "success",
    "error bad_input",
    "run_accepted",
    "success",
  ]);
  const error = frames.find((f) => f.frame === "error");
  assert.match(error.error.message, /longer than 1 MiB/);
});
