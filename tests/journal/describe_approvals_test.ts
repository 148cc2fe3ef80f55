/**
 * The one-line descriptions of the approval events (`framework trace`, `run --stream`): the tool, the
 * request, who decided and why.
 *
 * @module
 */

import assert from "node:assert/strict";
import { describeEvent } from "../../lib/journal/describe.ts";

Deno.test("describeEvent tells a person what an approval event was", () => {
  assert.equal(
    describeEvent({
      type: "approval_requested",
      payload: {
        approval_id: "apr_1",
        tool: "file_write",
        arguments: { path: "a.txt", content: "x" },
        expires_at: "2026-11-25T10:00:00.000Z",
      },
    }),
    'approval_requested file_write {"path":"a.txt","content":"x"} · apr_1 · waits until 2026-11-25T10:00:00.000Z',
  );
  assert.equal(
    describeEvent({
      type: "approval_decided",
      payload: { approval_id: "apr_1", decision: "denied", by: "k_2", reason: "not  now" },
    }),
    "approval_decided denied by k_2 · apr_1 · not now",
  );
  assert.equal(
    describeEvent({
      type: "approval_decided",
      payload: { approval_id: "apr_1", decision: "approved", by: "cli" },
    }),
    "approval_decided approved by cli · apr_1",
  );
  assert.equal(
    describeEvent({
      type: "run_resumed",
      payload: { parent_run_id: "run_1", at: 6, approval_id: "apr_1" },
    }),
    "run_resumed    from run_1 · on apr_1",
  );
});
