/**
 * The `run` tool's description (`framework mcp serve`): the harness's own description as one
 * sentence, ending with a single full stop whether or not it brings one.
 *
 * @module
 */

import assert from "node:assert/strict";
import { runToolDescription } from "../../lib/runs/mcp_serve.ts";

Deno.test("runToolDescription() ends the harness's description with one full stop", () => {
  const how =
    ' Give input (text) or input_file (a file inside the harness folder); thread_id "new"';
  assert.ok(
    runToolDescription("hello", "Greets the user and reads a note from its workspace.")
      .startsWith(
        `Run the harness hello: Greets the user and reads a note from its workspace.${how}`,
      ),
  );
  assert.ok(
    runToolDescription("hello", "Greets  ").startsWith(`Run the harness hello: Greets.${how}`),
  );
  assert.ok(
    runToolDescription("hello", "Greets?").startsWith(`Run the harness hello: Greets?${how}`),
  );
  assert.ok(runToolDescription("hello").startsWith(`Run the harness hello.${how}`));
  assert.ok(runToolDescription("hello", " ").startsWith(`Run the harness hello.${how}`));
});
