/**
 * The harness the approval tests share: `write …` counts once (a code tool, not gated), then writes
 * `workspace/out.txt` with `file_write` (gated by `approvals.tools: [file_*]`), then says done;
 * anything else is answered plainly.
 *
 * @module
 */

import { scripted, writeHarness } from "./harness.ts";

/** A code tool that appends a line to workspace/tally.txt: a replayed call would append twice. */
const TALLY = `
export async function tally() {
  await Deno.writeTextFile("workspace/tally.txt", "counted\\n", { append: true });
  return "counted";
}
`;

/**
 * The spec: writes `workspace/out.txt` (gated), after counting once (not gated); `plain` only answers.
 *
 * @param timeoutS `approvals.timeout_s`.
 * @returns The spec.
 */
export function approvalSpec(timeoutS = 600) {
  return {
    model: scripted([{ text: "plain answer" }], {
      scenarios: [{
        match: "^write",
        replies: [
          {
            tool_calls: [
              { name: "tally", arguments: {} },
              {
                name: "file_write",
                arguments: { path: "workspace/out.txt", content: "approved!" },
              },
            ],
          },
          { text: "done" },
        ],
      }],
    }),
    tools: [{ builtin: "file_write" }, { code: "tools.ts#tally", name: "tally" }],
    approvals: { tools: ["file_*"], timeout_s: timeoutS },
    limits: { max_turns: 4 },
  };
}

/**
 * Writes the harness.
 *
 * @param root The folder to write it in.
 * @param name Its id and folder name.
 * @param timeoutS `approvals.timeout_s`.
 * @returns Its folder.
 */
export async function approvalHarness(
  root: string,
  name: string,
  timeoutS?: number,
): Promise<string> {
  return await writeHarness(root, name, approvalSpec(timeoutS), {
    "tools.ts": TALLY,
    "workspace/.keep": "",
  });
}
