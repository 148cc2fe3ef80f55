/**
 * Verbs over forks: `fork` branches a run at one of its model calls into a new harness folder beside
 * its parent; `resume` runs a fork from the journal point where it was made.
 *
 * @module
 */

import type { Command } from "commander";
import { verbDescription } from "../verb_table.ts";
import { badInput } from "../../lib/errors.ts";
import { openHive } from "../../lib/hive/open.ts";
import type { ForkEdit } from "../../lib/runner/replay.ts";
import { readRequest } from "../../lib/requests.ts";
import { FORK_FLAGS, forkRun, resumeFork } from "../../lib/runs/forks.ts";
import { createRunService } from "../../lib/runs/service.ts";
import { resolveHarnessDir } from "../../lib/harness_spec/load.ts";
import { trustGate } from "../../lib/trust/trust_gate.ts";
import { wholeOption } from "../../lib/whole_number.ts";
import { type GlobalOptions, runVerb } from "../output.ts";
import { reportRun } from "./run_commands.ts";

/** The `--edit-…` options as a fork's edit. */
function editOption(
  o: { editUserMessage?: string; editToolResult?: string; callId?: string },
): { edit?: ForkEdit } {
  if (o.editUserMessage !== undefined && o.editToolResult !== undefined) {
    throw badInput("Give one of --edit-user-message and --edit-tool-result, not both");
  }
  if (o.callId !== undefined && o.editToolResult === undefined) {
    throw badInput("--call-id names the tool result --edit-tool-result replaces; give both");
  }
  if (o.editUserMessage !== undefined) {
    return { edit: { kind: "user_message", replacement: o.editUserMessage } };
  }
  if (o.editToolResult !== undefined) {
    return {
      edit: {
        kind: "tool_result",
        replacement: o.editToolResult,
        ...(o.callId !== undefined ? { call_id: o.callId } : {}),
      },
    };
  }
  return {};
}

/**
 * Registers `fork` and `resume`.
 *
 * @param program The root command.
 */
export function registerForkCommands(program: Command): void {
  program.command("fork")
    .description(verbDescription("fork"))
    .argument("<run_id>", "the run to fork")
    .requiredOption("--at <seq>", "the seq of one of the run's model_call events")
    .requiredOption("--name <name>", "the fork's id and folder name (a slug), beside the parent")
    .option("--model <model>", "the fork's model, as provider:name (default: the parent's)")
    .option(
      "--edit-user-message <text>",
      "replace the user message the model call at --at was given (every resume applies it)",
    )
    .option(
      "--edit-tool-result <text>",
      "replace a tool result the model call at --at was given (with --call-id when it had several)",
    )
    .option("--call-id <id>", "the tool call whose result --edit-tool-result replaces")
    .option("--json", "print the ok-wrapped JSON result")
    .action((
      runId: string,
      o: GlobalOptions & {
        at: string;
        name: string;
        model?: string;
        editUserMessage?: string;
        editToolResult?: string;
        callId?: string;
      },
    ) =>
      runVerb(o, async () => {
        const at = wholeOption(o.at, { name: "--at", min: 1 });
        const request = readRequest(FORK_FLAGS, {
          at,
          name: o.name,
          ...(o.model !== undefined ? { model: o.model } : {}),
          ...editOption(o),
        });
        const fork = await forkRun(openHive(), runId, request, "cli");
        return {
          data: fork,
          text:
            `Forked ${runId} at seq ${at} into ${fork.harness.root_path} (id ${fork.harness.id}).\n` +
            (fork.fork.edit
              ? `Every resume gives the model the ${
                fork.fork.edit.kind === "user_message"
                  ? "replaced user message"
                  : `replaced result of ${fork.fork.edit.tool} (${fork.fork.edit.call_id})`
              }.\n`
              : "") +
            `Resume it: framework resume ${fork.harness.root_path}`,
        };
      })
    );

  program.command("resume")
    .description(verbDescription("resume"))
    .argument("<fork-dir>", "the fork's folder")
    .option("--stream", "follow the run as it happens (with --json: NDJSON frames)")
    .option("--approve", "trust the folder if it is not trusted yet")
    .option("--json", "print the ok-wrapped JSON result")
    .action((dir: string, o: GlobalOptions & { stream?: boolean; approve?: boolean }) =>
      runVerb(o, async () => {
        const trusted = await trustGate(await resolveHarnessDir(dir), { approve: !!o.approve });
        const runs = createRunService();
        const run = await resumeFork(openHive(), runs, trusted);
        return await reportRun(run, o, { runs, trusted });
      })
    );
}
