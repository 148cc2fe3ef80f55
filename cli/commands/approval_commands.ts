/**
 * `framework approvals <dir> [list | show ID | approve ID | deny ID]`: a harness's tool approvals
 * from the command line (docs/runs.md, Tool approvals). A decision quotes the arguments' hash it was
 * shown: `--hash`, or the request shown and confirmed on a terminal. Approving the request of a run
 * whose process is gone takes the run up again here, and waits for it.
 *
 * @module
 */

import type { Command } from "commander";
import { verbDescription } from "../verb_table.ts";
import { badInput } from "../../lib/errors.ts";
import { harnessIdOf } from "../../lib/harness_spec/harness_id.ts";
import { type ApprovalRecord, getApproval, listApprovals } from "../../lib/hive/approvals.ts";
import { openHive } from "../../lib/hive/open.ts";
import { approvalFilter } from "../../lib/requests.ts";
import { decideApproval } from "../../lib/runs/approvals.ts";
import { createRunService } from "../../lib/runs/service.ts";
import { wholeNumber } from "../../lib/whole_number.ts";
import { type GlobalOptions, runVerb, writeErr } from "../output.ts";
import { approvalText, askDecision } from "./approval_prompt.ts";

function line(r: ApprovalRecord): string {
  const when = r.status === "pending" ? `until ${r.expires_at}` : `${r.decided_by} ${r.decided_at}`;
  return `${r.approval_id}  ${r.status.padEnd(8)} ${r.tool}  run ${r.run_id}  ${when}`;
}

/**
 * Registers `approvals`.
 *
 * @param program The root command.
 */
export function registerApprovalCommands(program: Command): void {
  program.command("approvals")
    .description(verbDescription("approvals"))
    .argument("<dir>", "the harness folder")
    .argument("[action]", "list (default), show, approve or deny")
    .argument("[id]", "the request (apr_…), for show, approve and deny")
    .option("--status <which>", "list only pending or decided requests")
    .option("--limit <n>", "requests listed at most (newest first)", "100")
    .option(
      "--hash <arguments_hash>",
      "the arguments' hash you were shown (without it, a terminal shows the request and asks)",
    )
    .option("--reason <text>", "why (deny: the model reads it)")
    .option("--json", "print the ok-wrapped JSON result")
    .action((
      dir: string,
      action: string | undefined,
      id: string | undefined,
      o: GlobalOptions & { status?: string; limit: string; hash?: string; reason?: string },
    ) =>
      runVerb(o, async () => {
        const db = openHive();
        const harness = await harnessIdOf(dir);
        const verb = action ?? "list";
        if (verb === "list") {
          const limit = wholeNumber(o.limit, { name: "--limit", min: 1, max: 1000, fallback: 100 });
          const approvals = listApprovals(db, harness, approvalFilter(o.status), limit);
          return {
            data: { approvals },
            text: approvals.length ? approvals.map(line).join("\n") : "No approval requests.",
          };
        }
        if (!["show", "approve", "deny"].includes(verb)) {
          throw badInput(
            `Unknown action ${JSON.stringify(verb)}: use list, show ID, approve ID or deny ID`,
          );
        }
        if (!id) throw badInput(`Name the request: framework approvals ${dir} ${verb} apr_…`);
        const record = getApproval(db, harness, id);
        if (verb === "show") return { data: record, text: approvalText(record) };
        let decision = verb as "approve" | "deny";
        let reason = o.reason;
        if (o.hash === undefined) {
          if (!Deno.stdin.isTerminal() || o.json) {
            throw badInput(
              `Quote the arguments you decide on: --hash ${record.arguments_hash} (see \`framework approvals ${dir} show ${id}\`)`,
              { approval_id: id, arguments_hash: record.arguments_hash },
            );
          }
          if (record.status === "pending") {
            const asked = await askDecision(record);
            decision = asked.decision;
            reason = reason ?? asked.reason;
          }
        }
        const runs = createRunService();
        const { record: decided, resumed } = await decideApproval(
          db,
          runs,
          harness.dir,
          harness,
          id,
          {
            decision,
            arguments_hash: o.hash ?? record.arguments_hash,
            ...(reason !== undefined ? { reason } : {}),
          },
          { by: "cli", mayDecideOwn: true },
        );
        const data = { ...decided, ...(resumed ? { resumed_run_id: resumed.run_id } : {}) };
        if (!resumed) return { data, text: `${decided.status}: ${decided.approval_id}` };
        // The run's process is gone: it goes on here, from its journal, until it ends.
        writeErr(`${decided.status}: ${id}; the run goes on as ${resumed.run_id}`);
        const result = await resumed.result;
        return {
          data,
          text: `${resumed.run_id} ${result.status}${result.output ? `\n${result.output}` : ""}`,
        };
      })
    );
}
