/**
 * Verbs over evaluations and versions: `eval` runs an eval set, `eval add` adds a case to one (from a
 * run), `versions` lists a harness's versions, `versions diff` compares two, `versions restore`
 * writes one back.
 *
 * @module
 */

import type { Command } from "commander";
import { verbDescription } from "../verb_table.ts";
import { restoreVersion } from "../../lib/construct/restore_version.ts";
import { badInput, EXIT_RUN_NOT_SUCCESS } from "../../lib/errors.ts";
import { compareVersions, versionTimeline } from "../../lib/evals/compare.ts";
import { runEval } from "../../lib/evals/run_eval.ts";
import { addEvalCase, evalCaseFromRun } from "../../lib/evals/eval_cases.ts";
import { findRun } from "../../lib/journal/trace.ts";
import type { EvalResult } from "../../lib/hive/evals.ts";
import { openHive } from "../../lib/hive/open.ts";
import { createRunService } from "../../lib/runs/service.ts";
import { harnessIdOf } from "../../lib/harness_spec/harness_id.ts";
import { loadSpec, resolveHarnessDir } from "../../lib/harness_spec/load.ts";
import { trustGate } from "../../lib/trust/trust_gate.ts";
import { wholeOption } from "../../lib/whole_number.ts";
import { type GlobalOptions, runVerb, writeErr } from "../output.ts";

function evalTable(r: EvalResult): string {
  const rows = r.cases.map((c) =>
    [
      c.case_id.padEnd(20),
      (c.passed ? "pass" : "FAIL").padEnd(5),
      c.status.padEnd(15),
      `$${c.cost_usd.toFixed(6)}`,
      `${String(c.turns).padStart(3)} turns`,
      `${String(c.duration_ms).padStart(6)} ms`,
      c.passed ? "" : c.checks.filter((k) => !k.passed).map((k) => `${k.name}: ${k.message}`)
        .join("; "),
    ].join("  ")
  );
  const passed = r.cases.filter((c) => c.passed).length;
  return [
    ...rows,
    `${r.set}: ${passed}/${r.cases.length} passed (${(r.pass_rate * 100).toFixed(1)}%), $${
      r.cost_usd.toFixed(6)
    }, p50 ${r.p50_duration_ms ?? "-"} ms, version ${r.spec_version.slice(0, 12)}, ${r.eval_id}`,
  ].join("\n");
}

/** Collects a repeatable option. */
function collect(value: string, previous: string[] = []): string[] {
  return [...previous, value];
}

/** `eval add`: one case into a set, drafted from a run or written out with the options. */
function registerEvalAdd(evalCommand: Command): void {
  evalCommand.command("add")
    .description(
      "Add a case to an eval set (evals/<set>.yaml, created when new; comments kept): from a run (its input, its status, a check of its output) or from the options",
    )
    .argument("<dir>", "the harness folder")
    .requiredOption("--set <name>", "the set (a new name makes a new set)")
    .option("--from-run <run_id>", "draft the case from this run of the harness")
    .option("--id <case_id>", "the case id (default from the run: its input's first words)")
    .option("--input <text>", "the input (default: the run's)")
    .option("--input-file <path>", "a file of the harness as the input (default: the run's)")
    .option(
      "--status <status>",
      "the status the run should end with (default: the run's, else success)",
    )
    .option(
      "--contains <text>",
      "a check: the output contains this text (repeatable; replaces the run's drafted check)",
      collect,
    )
    .option(
      "--expect <json>",
      'a check written as a validator entry, e.g. {"builtin": "regex", "pattern": "^Hi"} (repeatable)',
      collect,
    )
    .option("--json", "print the ok-wrapped JSON result")
    .action((
      dir: string,
      o: GlobalOptions & {
        set: string;
        fromRun?: string;
        id?: string;
        input?: string;
        inputFile?: string;
        status?: string;
        contains?: string[];
        expect?: string[];
      },
    ) =>
      runVerb(o, async () => {
        const ref = await harnessIdOf(dir);
        const db = openHive();
        const draft = o.fromRun
          ? (await evalCaseFromRun(db, findRun(db, ref, o.fromRun))).case
          : undefined;
        const expect = [
          ...(o.contains
            ? o.contains.map((text) => ({ builtin: "contains", text }))
            : draft?.expect ?? []),
          ...(o.expect ?? []).map((raw) => {
            try {
              return JSON.parse(raw) as unknown;
            } catch {
              throw badInput(
                `--expect ${
                  JSON.stringify(raw)
                } is not JSON; write a validator entry like {"builtin": "contains", "text": "Hi"}`,
              );
            }
          }),
        ];
        const item: Record<string, unknown> = { ...draft };
        if (o.id !== undefined) item.id = o.id;
        if (item.id === undefined) {
          throw badInput("Name the case with --id (or draft it with --from-run)");
        }
        if (o.input !== undefined || o.inputFile !== undefined) {
          delete item.input;
          delete item.input_file;
          if (o.input !== undefined) item.input = o.input;
          if (o.inputFile !== undefined) item.input_file = o.inputFile;
        }
        if (o.status !== undefined) item.status = o.status;
        if (expect.length) item.expect = expect;
        else delete item.expect;
        const added = await addEvalCase(ref.dir, o.set, item);
        return {
          data: added,
          text: `Added case ${JSON.stringify(added.case.id)} to ${added.path}${
            added.created_set ? " (a new set)" : ""
          }. Run it: framework eval ${dir} --set ${added.set}`,
        };
      })
    );
}

function signed(n: number | null, digits = 3): string {
  if (n === null) return "-";
  return `${n > 0 ? "+" : ""}${Number(n.toFixed(digits))}`;
}

/**
 * Registers `eval` (and `eval add`) and `versions`.
 *
 * @param program The root command.
 */
export function registerEvalCommands(program: Command): void {
  const evalCommand = program.command("eval")
    .helpCommand(false)
    .description(verbDescription("eval"))
    .argument("<dir>", "the harness folder")
    .option("--set <name>", "the set (needed when the harness has several)")
    .option("--concurrency <n>", "cases run at once (default 2, at most 16)", "2")
    .option("--count-as-live", "count the runs in the harness's live-run statistics")
    .option("--approve", "trust the folder if it is not trusted yet")
    .option("--json", "print the ok-wrapped JSON result")
    .action((
      dir: string,
      o: GlobalOptions & {
        set?: string;
        concurrency: string;
        countAsLive?: boolean;
        approve?: boolean;
      },
    ) =>
      runVerb(o, async () => {
        const concurrency = wholeOption(o.concurrency, { name: "--concurrency", min: 1, max: 16 });
        const trusted = await trustGate(await resolveHarnessDir(dir), { approve: !!o.approve });
        const result = await runEval(openHive(), createRunService(), trusted, {
          ...(o.set !== undefined ? { set: o.set } : {}),
          concurrency,
          countAsLive: !!o.countAsLive,
          onCase: (c, done, total) =>
            writeErr(
              `[${done}/${total}] ${c.case_id}: ${c.passed ? "pass" : "FAIL"} (${c.status})`,
            ),
        });
        return {
          data: result,
          text: evalTable(result),
          exitCode: result.cases.every((c) => c.passed) ? 0 : EXIT_RUN_NOT_SUCCESS,
        };
      })
    );
  registerEvalAdd(evalCommand);

  const versions = program.command("versions")
    .description(verbDescription("versions"));
  versions.command("list", { isDefault: true })
    .description("List the versions, newest first, with their run counts")
    .argument("<dir>", "the harness folder")
    .option("--json", "print the ok-wrapped JSON result")
    .action((dir: string, o: GlobalOptions) =>
      runVerb(o, async () => {
        const ref = await harnessIdOf(dir);
        const current = (await loadSpec(ref.dir).catch(() => undefined))?.version;
        const list = versionTimeline(openHive(), ref, current);
        const text = list.length
          ? list.map((v) =>
            `${v.current ? "*" : " "} ${v.version.slice(0, 12)}  ${v.source.padEnd(14)} ${
              String(v.runs).padStart(5)
            } live ${String(v.eval_runs).padStart(5)} eval runs  ${v.created_at}`
          ).join("\n")
          : "No versions recorded yet.";
        return { data: { harness_id: ref.id, versions: list }, text };
      })
    );
  versions.command("diff")
    .description("Compare two versions: YAML diff, live-run deltas, eval cases, failure signatures")
    .argument("<dir>", "the harness folder")
    .argument("<a>", "the earlier version (hash or unique prefix)")
    .argument("<b>", "the later version")
    .option("--set <name>", "the eval set to compare on")
    .option("--json", "print the ok-wrapped JSON result")
    .action((dir: string, a: string, b: string, o: GlobalOptions & { set?: string }) =>
      runVerb(o, async () => {
        const ref = await harnessIdOf(dir);
        const c = compareVersions(openHive(), ref, a, b, o.set);
        const m = c.metrics;
        const lines = [
          c.yaml_diff.trimEnd() || "(the YAML is the same)",
          "",
          `runs ${m.a.runs} → ${m.b.runs}; success rate ${m.a.success_rate ?? "-"} → ${
            m.b.success_rate ?? "-"
          } (${signed(m.delta.success_rate)}); cost/run ${m.a.cost_usd ?? "-"} → ${
            m.b.cost_usd ?? "-"
          } (${signed(m.delta.cost_usd, 6)})`,
          ...(c.evals.set
            ? [
              `eval set ${c.evals.set}: ${
                c.evals.cases.map((x) => `${x.case_id} ${x.change}`).join(", ")
              }`,
            ]
            : ["no evaluation of these versions on a common set (framework eval)"]),
          ...c.signatures.appeared.map((s) => `+ ${s.signature} (${s.count_b})`),
          ...c.signatures.disappeared.map((s) => `- ${s.signature} (${s.count_a})`),
        ];
        return { data: c, text: lines.join("\n") };
      })
    );
  versions.command("restore")
    .description("Write a recorded version's harness.yaml back (one construction, logged)")
    .argument("<dir>", "the harness folder")
    .argument("<version>", "the version (hash or unique prefix)")
    .option("--json", "print the ok-wrapped JSON result")
    .action((dir: string, version: string, o: GlobalOptions) =>
      runVerb(o, async () => {
        const ref = await harnessIdOf(dir);
        const r = await restoreVersion(openHive(), ref, version, { actor: "cli", policy: "local" });
        return {
          data: { restored: version, spec_version: r.spec_version, changed: r.changed },
          text: r.changed
            ? `Restored ${version}: harness.yaml is version ${r.spec_version.slice(0, 12)}`
            : `harness.yaml already is ${version}; nothing written`,
        };
      })
    );
}
