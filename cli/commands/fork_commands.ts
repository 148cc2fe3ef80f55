/**
 * Verbs over forks: `fork` branches a run at one of its model calls into a new harness folder beside
 * its parent; `resume` runs a fork from the journal point where it was made.
 *
 * @module
 */

import type { Command } from "commander";
import { openHive } from "../../lib/hive/open.ts";
import { forkRun, resumeFork } from "../../lib/runs/forks.ts";
import { createRunService } from "../../lib/runs/service.ts";
import { resolveHarnessDir } from "../../lib/spec/load.ts";
import { trustGate } from "../../lib/trust/gate.ts";
import { wholeOption } from "../../lib/whole_number.ts";
import { type GlobalOptions, runVerb } from "../output.ts";
import { reportRun } from "./run_commands.ts";

/**
 * Registers `fork` and `resume`.
 *
 * @param program The root command.
 */
export function registerForkCommands(program: Command): void {
  program.command("fork")
    .description("Fork a run at one of its model calls into a new harness folder beside its parent")
    .argument("<run_id>", "the run to fork")
    .requiredOption("--at <seq>", "the seq of one of the run's model_call events")
    .requiredOption("--name <name>", "the fork's id and folder name (a slug), beside the parent")
    .option("--model <model>", "the fork's model, as provider:name (default: the parent's)")
    .option("--json", "print the ok-wrapped JSON result")
    .action((runId: string, o: GlobalOptions & { at: string; name: string; model?: string }) =>
      runVerb(o, async () => {
        const at = wholeOption(o.at, { name: "--at", min: 1 });
        const fork = await forkRun(openHive(), runId, {
          at,
          name: o.name,
          ...(o.model !== undefined ? { model: o.model } : {}),
        }, "cli");
        return {
          data: fork,
          text:
            `Forked ${runId} at seq ${at} into ${fork.harness.root_path} (id ${fork.harness.id}).\n` +
            `Resume it: framework resume ${fork.harness.root_path}`,
        };
      })
    );

  program.command("resume")
    .description(
      "Run a fork from the point it was forked at: the parent's prefix is replayed from its journal (verified first, nothing re-executed), then the run goes on live (exit 0 on success, 3 otherwise)",
    )
    .argument("<fork-dir>", "the fork's folder")
    .option("--stream", "follow the run as it happens (with --json: NDJSON frames)")
    .option("--approve", "trust the folder if it is not trusted yet")
    .option("--json", "print the ok-wrapped JSON result")
    .action((dir: string, o: GlobalOptions & { stream?: boolean; approve?: boolean }) =>
      runVerb(o, async () => {
        const trusted = await trustGate(await resolveHarnessDir(dir), { approve: !!o.approve });
        const run = await resumeFork(openHive(), createRunService(), trusted);
        return await reportRun(run, o);
      })
    );
}
