/**
 * A former trace folder is refused wherever today's is. After `logging.trace_dir` changes, the old
 * folder's journals (the run inputs in them) are still in the harness folder; a run's `file_read`,
 * its sandboxed code (child process and Worker) and `input_file` must refuse them as they refuse the
 * folder the spec names now. Driven through real `framework run` processes.
 *
 * @module
 */

import assert from "node:assert/strict";
import { join } from "node:path";
import { runCli } from "../helpers/cli.ts";
import { jsonError, jsonOk } from "../helpers/cli_assert.ts";
import { scripted, writeHarness } from "../helpers/harness.ts";
import { tempDir } from "../helpers/temp.ts";

// deno-lint-ignore no-explicit-any
type Json = any;

const SECRET = "private input sk-former-trace-7731";

const PEEK = `export async function peek(args: { path: string }) {
  return await Deno.readTextFile(args.path);
}
`;

Deno.test("a former trace folder is refused to file_read, sandboxed code and input_file", async () => {
  await using home = await tempDir("fw-ftf-home-");
  await using cwd = await tempDir("fw-ftf-cwd-");
  const cli = (args: string[], env: Record<string, string> = {}) =>
    runCli(args, { home: home.path, cwd: cwd.path, env });

  // A run journalled in old-logs/, with a secret in its input.
  const dir = await writeHarness(cwd.path, "moved", {
    model: scripted([{ text: "ok" }]),
    logging: { trace_dir: "old-logs" },
  });
  const first = jsonOk(await cli(["run", "moved", "--input", SECRET, "--approve", "--json"]));
  const former = `old-logs/${first.run_id}.jsonl`;
  assert.match(await Deno.readTextFile(join(dir, former)), /sk-former-trace-7731/);

  // logging.trace_dir moves to logs/; the model asks for the former journal every way it can.
  await writeHarness(cwd.path, "moved", {
    model: scripted([
      {
        tool_calls: [
          { name: "file_read", arguments: { path: former } },
          // Code gets the absolute path: a Worker's relative paths start elsewhere.
          { name: "peek", arguments: { path: join(dir, former) } },
          { name: "file_read", arguments: { path: "notes.txt" } },
        ],
      },
      { text: "done" },
    ]),
    tools: [{ builtin: "file_read" }, { code: "tools/peek.ts#peek" }],
    logging: { trace_dir: "logs" },
  }, { "tools/peek.ts": PEEK, "notes.txt": "an ordinary note\n" });

  for (const sandbox of ["process", "worker"]) {
    const run = jsonOk(
      await cli(["run", "moved", "--input", "go", "--approve", "--json"], {
        FRAMEWORK_SANDBOX: sandbox,
      }),
    );
    assert.equal(run.status, "success", JSON.stringify(run));
    const trace = jsonOk(await cli(["trace", run.run_id, "--json"]));
    assert.equal(trace.integrity.ok, true);
    const results = trace.events.filter((e: Json) => e.type === "tool_result")
      .map((e: Json) => e.payload);
    assert.equal(results.length, 3);
    const [read, peek, note] = results;
    assert.equal(read.ok, false, `file_read of ${former} (${sandbox})`);
    assert.equal(read.error.code, "refused");
    assert.match(read.error.message, /inside a trace folder/);
    assert.equal(peek.ok, false, `code reading ${former} (${sandbox})`);
    assert.equal(peek.error.code, "permission_denied", JSON.stringify(peek));
    assert.equal(note.ok, true, "an ordinary file is still read");
    assert.equal(note.content, "an ordinary note\n");
    const journal = await Deno.readTextFile(join(dir, "logs", `${run.run_id}.jsonl`));
    assert.doesNotMatch(journal, /sk-former-trace-7731/, `the secret never reached the run`);
  }

  // input_file: bad input (exit 2) before anything is recorded.
  const refused = jsonError(
    await cli(["run", "moved", "--input-file", former, "--approve", "--json"]),
    "bad_input",
    2,
  );
  assert.match(refused.message, /inside a trace folder/);
  assert.doesNotMatch(refused.message, /sk-former-trace-7731/);
});
