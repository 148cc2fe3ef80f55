/**
 * `framework evolve propose` and `framework proposals list|show|apply|reject`: the evolution loop
 * with a person deciding what changes.
 *
 * @module
 */

import type { Command } from "commander";
import { verbDescription } from "../verb_table.ts";
import { applyProposal, rejectProposal } from "../../lib/evolve/decide.ts";
import { proposeImprovement } from "../../lib/evolve/propose.ts";
import { measureProposal } from "../../lib/evals/measure_proposal.ts";
import { createRunService } from "../../lib/runs/service.ts";
import { getProposal, listProposals, type Proposal } from "../../lib/hive/proposals.ts";
import { PROPOSAL_STATUSES } from "../../lib/proposal_status.ts";
import { openHive } from "../../lib/hive/open.ts";
import { harnessIdOf } from "../../lib/harness_spec/harness_id.ts";
import { type GlobalOptions, runVerb } from "../output.ts";

const POLICY = "proposal" as const;

function collect(value: string, previous: string[]): string[] {
  return [...previous, ...value.split(",").map((v) => v.trim()).filter(Boolean)];
}

/** A proposal for people: rationale, evidence, every change with its status and diff. */
export function describeProposal(p: Proposal): string {
  const lines = [
    `${p.id}  ${p.status}  (trigger ${p.trigger}, ${p.created_at})`,
    `Rationale: ${p.rationale}`,
  ];
  if (p.evidence.failure_signatures.length) {
    lines.push("Evidence:");
    for (const f of p.evidence.failure_signatures) {
      lines.push(`  ${String(f.count).padStart(4)}  ${f.signature}`);
    }
  }
  if (p.yaml_changes.length) lines.push("YAML changes:");
  for (const c of p.yaml_changes) {
    lines.push(
      `  [${c.status}] ${c.op} ${c.path}${c.op === "set" ? ` = ${JSON.stringify(c.value)}` : ""}${
        c.reason ? `  (${c.reason})` : ""
      }`,
    );
  }
  if (p.code_changes.length) lines.push("Code changes:");
  for (const c of p.code_changes) {
    lines.push(`  ${c.id} [${c.status}] ${c.path}${c.reason ? `  (${c.reason})` : ""}`);
    lines.push(...c.diff.trimEnd().split("\n").map((l) => `      ${l}`));
  }
  if (p.reason) lines.push(`Reason: ${p.reason}`);
  return lines.join("\n");
}

/**
 * Registers `evolve` and `proposals`.
 *
 * @param program The root command.
 */
export function registerEvolveCommands(program: Command): void {
  const evolve = program.command("evolve").description(verbDescription("evolve"));
  registerEvolvePropose(evolve);
  const proposals = program.command("proposals").description(verbDescription("proposals"));
  registerProposalsList(proposals);
  registerProposalsShow(proposals);
  registerProposalsApply(proposals);
  registerProposalsReject(proposals);
}

/** Registers `framework evolve propose`. */
function registerEvolvePropose(evolve: Command): void {
  evolve.command("propose")
    .description("Draft and queue an improvement (never applied by proposing)")
    .argument("<dir>", "the harness folder")
    .option("--objective <text>", "what to improve")
    .option(
      "--run <run_id>",
      "a run to learn from (repeatable; default: the recent failures)",
      collect,
      [],
    )
    .option("--json", "print the ok-wrapped JSON result")
    .action((dir: string, o: GlobalOptions & { objective?: string; run: string[] }) =>
      runVerb(o, async () => {
        const p = await proposeImprovement(dir, {
          trigger: "cli",
          policy: POLICY,
          ...(o.objective ? { objective: o.objective } : {}),
          ...(o.run.length ? { runIds: o.run } : {}),
        });
        return {
          data: p,
          text: `${
            describeProposal(p)
          }\n\nApply with: framework proposals apply ${dir} ${p.id} --yaml${
            p.code_changes.filter((c) => c.status === "pending").map((c) =>
              ` --approve-code ${c.id}`
            ).join("")
          }`,
        };
      })
    );
}

/** Registers `framework proposals list`. */
function registerProposalsList(proposals: Command): void {
  proposals.command("list")
    .description("List a harness's proposals, newest first")
    .argument("<dir>", "the harness folder")
    .option("--status <status>", `only this status: ${PROPOSAL_STATUSES.join(", ")}`)
    .option("--json", "print the ok-wrapped JSON result")
    .action((dir: string, o: GlobalOptions & { status?: string }) =>
      runVerb(o, async () => {
        const harness = await harnessIdOf(dir);
        const id = harness.id;
        const list = listProposals(openHive(), harness, o.status);
        const text = list.length
          ? list.map((p) =>
            `${p.id}  ${p.status.padEnd(17)} ${
              p.trigger.padEnd(5)
            } ${p.yaml_changes.length} yaml, ${p.code_changes.length} code  ${
              p.rationale.slice(0, 60)
            }`
          ).join("\n")
          : "No proposals.";
        return { data: { harness_id: id, proposals: list }, text };
      })
    );
}

/** Registers `framework proposals show`. */
function registerProposalsShow(proposals: Command): void {
  proposals.command("show")
    .description("Show one proposal with its evidence and diffs")
    .argument("<dir>", "the harness folder")
    .argument("<id>", "the proposal id")
    .option(
      "--measure",
      "also run an eval set against the proposal's YAML on a temporary copy (nothing is applied)",
    )
    .option("--set <name>", "the eval set to measure on")
    .option("--json", "print the ok-wrapped JSON result")
    .action((dir: string, id: string, o: GlobalOptions & { measure?: boolean; set?: string }) =>
      runVerb(o, async () => {
        const ref = await harnessIdOf(dir);
        const p = getProposal(openHive(), ref, id);
        if (!o.measure) return { data: p, text: describeProposal(p) };
        const m = await measureProposal(openHive(), createRunService(), ref.dir, id, {
          ...(o.set !== undefined ? { set: o.set } : {}),
        });
        const pct = (r: number) => `${(r * 100).toFixed(1)}%`;
        const lines = [
          describeProposal(p),
          "",
          `Measured on ${m.set}: pass rate ${pct(m.baseline.pass_rate)} → ${
            pct(m.measured.pass_rate)
          } (${m.delta.pass_rate >= 0 ? "+" : ""}${pct(m.delta.pass_rate)}), cost $${
            m.baseline.cost_usd.toFixed(6)
          } → $${m.measured.cost_usd.toFixed(6)}`,
          ...m.cases.filter((c) => c.change !== "still_passing").map((c) =>
            `  ${c.case_id}: ${c.change.replace(/_/g, " ")}`
          ),
        ];
        return { data: { proposal: p, measure: m }, text: lines.join("\n") };
      })
    );
}

/** Registers `framework proposals apply`. */
function registerProposalsApply(proposals: Command): void {
  proposals.command("apply")
    .description(
      "Apply a proposal: its YAML changes with --yaml, each code change only with --approve-code ID",
    )
    .argument("<dir>", "the harness folder")
    .argument("<id>", "the proposal id")
    .option("--yaml", "apply the YAML changes (all together, validated first)")
    .option(
      "--approve-code <id>",
      "apply this code change (repeatable or comma-separated)",
      collect,
      [],
    )
    .option("--json", "print the ok-wrapped JSON result")
    .action((
      dir: string,
      id: string,
      o: GlobalOptions & { yaml?: boolean; approveCode: string[] },
    ) =>
      runVerb(o, async () => {
        const p = await applyProposal(dir, id, {
          apply_yaml: !!o.yaml,
          approve_code: o.approveCode,
        }, { policy: POLICY });
        return { data: p, text: describeProposal(p) };
      })
    );
}

/** Registers `framework proposals reject`. */
function registerProposalsReject(proposals: Command): void {
  proposals.command("reject")
    .description("Reject a proposal with a reason")
    .argument("<dir>", "the harness folder")
    .argument("<id>", "the proposal id")
    .requiredOption("--reason <text>", "why it is rejected")
    .option("--json", "print the ok-wrapped JSON result")
    .action((dir: string, id: string, o: GlobalOptions & { reason: string }) =>
      runVerb(o, async () => {
        const p = await rejectProposal(dir, id, o.reason, { policy: POLICY });
        return { data: p, text: `Rejected ${p.id}: ${p.reason}` };
      })
    );
}
