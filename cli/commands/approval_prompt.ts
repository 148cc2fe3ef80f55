/**
 * Tool approvals at the terminal: a request shown to a person, and `framework run` asking in place
 * when its run waits for a decision (docs/runs.md, Tool approvals).
 *
 * @module
 */

import type { ApprovalRecord } from "../../lib/hive/approvals.ts";
import type { Hive } from "../../lib/hive/open.ts";
import type { HarnessRef } from "../../lib/hive/harnesses.ts";
import { decideApproval } from "../../lib/runs/approvals.ts";
import type { HarnessTarget, RunService, Submission } from "../../lib/runs/service.ts";
import { askOnTerminal } from "../../lib/terminal.ts";
import { FrameworkError } from "../../lib/errors.ts";
import { writeErr } from "../output.ts";

/** What a request shows a person: enough to decide, with the arguments in full. */
type Shown =
  & Pick<ApprovalRecord, "approval_id" | "tool" | "arguments" | "arguments_hash">
  & Partial<ApprovalRecord>;

/**
 * A request as text: its tool and arguments (in full: a person decides on exactly these), its hash,
 * and when it expires or how it was decided.
 *
 * @param r The request.
 * @returns The lines.
 */
export function approvalText(r: Shown): string {
  const head = [
    `${r.approval_id}  ${r.tool}${r.status ? `  ${r.status}` : ""}${
      r.run_id ? `  run ${r.run_id}` : ""
    }`,
  ];
  const args = JSON.stringify(r.arguments, null, 2).split("\n").map((l) => `  ${l}`);
  const tail = [`  arguments_hash ${r.arguments_hash}`];
  if ((r.status ?? "pending") === "pending" && r.expires_at) tail.push(`  expires ${r.expires_at}`);
  if (r.decided_at) {
    tail.push(
      `  ${r.status} by ${r.decided_by} at ${r.decided_at}${r.reason ? `: ${r.reason}` : ""}`,
    );
  }
  return [...head, ...args, ...tail].join("\n");
}

/**
 * Asks the person at the terminal about a request: `y` approves, anything else denies, with a
 * reason asked for then.
 *
 * @param r The request.
 * @returns The decision and its reason.
 */
export async function askDecision(
  r: Shown,
): Promise<{ decision: "approve" | "deny"; reason?: string }> {
  writeErr(`\nThe run asks to call ${r.tool}:\n${approvalText(r)}`);
  const answer = await askOnTerminal(`Approve ${r.tool}? [y/N] `);
  if (/^y(es)?$/i.test(answer)) return { decision: "approve" };
  const reason = await askOnTerminal("Why not? (the model reads it; Enter for none) ");
  return { decision: "deny", ...(reason ? { reason } : {}) };
}

/** The payload of an `approval_requested` event. */
interface Requested {
  approval_id: string;
  tool: string;
  arguments: Record<string, unknown>;
  arguments_hash: string;
  expires_at: string;
}

/**
 * Follows a run and, for each request it makes, asks the person at the terminal (when there is
 * one) or says how to decide elsewhere. A request decided meanwhile (the workbench, another
 * shell) is reported, not decided twice.
 *
 * @param run The run.
 * @param ctx The hive, the run service (a local decision may take a stopped run up), the harness.
 * @param ctx.interactive Whether a person at a terminal can be asked.
 */
export async function decideInPlace(
  run: Submission,
  ctx: {
    db: Hive;
    runs: RunService;
    target: HarnessTarget;
    harness: HarnessRef;
    dir: string;
    interactive: boolean;
  },
): Promise<void> {
  for await (const frame of run.frames()) {
    if (frame.frame !== "trace" || frame.type !== "approval_requested") continue;
    const r = frame.payload as unknown as Requested;
    if (!ctx.interactive) {
      writeErr(
        `The run waits for a decision on ${r.tool} (${r.approval_id}, until ${r.expires_at}): framework approvals ${ctx.dir} approve ${r.approval_id} --hash ${r.arguments_hash}, or deny ${r.approval_id} --hash ${r.arguments_hash} --reason "…"`,
      );
      continue;
    }
    await new Promise((resolve) => setTimeout(resolve, 0)); // `--stream` prints the event first
    const { decision, reason } = await askDecision(r);
    try {
      await decideApproval(ctx.db, ctx.runs, ctx.target, ctx.harness, r.approval_id, {
        decision,
        arguments_hash: r.arguments_hash,
        ...(reason !== undefined ? { reason } : {}),
      }, { by: "cli", mayDecideOwn: true });
      writeErr(decision === "approve" ? "Approved." : "Denied.");
    } catch (err) {
      if (!(err instanceof FrameworkError) || err.kind !== "conflict") throw err;
      writeErr(`Not decided here: ${err.message}`);
    }
  }
}
