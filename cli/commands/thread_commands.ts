/**
 * `framework threads <dir> [list | show ID | delete ID]`: a harness's threads, as the local face sees
 * them (every owner's). A turn of a thread is `framework run <dir> --thread ID|new`.
 *
 * @module
 */

import type { Command } from "commander";
import { verbDescription } from "../verb_table.ts";
import { badInput } from "../../lib/errors.ts";
import { harnessIdOf } from "../../lib/harness_spec/harness_id.ts";
import { openHive } from "../../lib/hive/open.ts";
import {
  deleteThread,
  getThread,
  listThreads,
  type ThreadRecord,
  threadTurns,
} from "../../lib/hive/threads.ts";
import { wholeNumber } from "../../lib/whole_number.ts";
import { type GlobalOptions, runVerb } from "../output.ts";

function line(t: ThreadRecord): string {
  const busy = t.live_run_id ? `  running ${t.live_run_id}` : "";
  return `${t.thread_id}  ${t.turns} turn${
    t.turns === 1 ? "" : "s"
  }  ${t.updated_at}  ${t.owner}${busy}`;
}

/**
 * Registers `threads`.
 *
 * @param program The root command.
 */
export function registerThreadCommands(program: Command): void {
  program.command("threads")
    .description(verbDescription("threads"))
    .argument("<dir>", "the harness folder")
    .argument("[action]", "list (default), show or delete")
    .argument("[id]", "the thread, for show and delete")
    .option("--limit <n>", "threads listed at most (newest first)", "50")
    .option("--json", "print the ok-wrapped JSON result")
    .action((
      dir: string,
      action: string | undefined,
      id: string | undefined,
      o: GlobalOptions & { limit: string },
    ) =>
      runVerb(o, async () => {
        const db = openHive();
        const harness = await harnessIdOf(dir);
        const verb = action ?? "list";
        if (verb === "list") {
          const limit = wholeNumber(o.limit, { name: "--limit", min: 1, max: 1000, fallback: 50 });
          const page = listThreads(db, harness, null, { limit });
          return {
            data: page,
            text: page.threads.length
              ? page.threads.map(line).join("\n")
              : `No threads yet: framework run ${dir} --thread new --input "…"`,
          };
        }
        if (verb !== "show" && verb !== "delete") {
          throw badInput(`Unknown action ${JSON.stringify(verb)}: use list, show ID or delete ID`);
        }
        if (!id) throw badInput(`Name the thread: framework threads ${dir} ${verb} thr_…`);
        if (verb === "delete") {
          deleteThread(db, harness, id, null);
          return { data: { deleted: true }, text: `Deleted ${id} (its runs stay)` };
        }
        const thread = getThread(db, harness, id, null);
        const runs = threadTurns(db, id);
        return {
          data: { ...thread, runs },
          text: [
            line(thread),
            ...runs.map((r) =>
              `\n${r.run_id}  ${r.status}  $${r.cost_usd.toFixed(6)}\n> ${r.input}\n${
                r.output ?? "…"
              }`
            ),
          ].join("\n"),
        };
      })
    );
}
