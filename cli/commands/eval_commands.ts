/**
 * Verbs over evaluations and versions: `eval` runs an eval set, `versions` lists a harness's
 * versions, `versions diff` compares two, `versions restore` writes one back.
 *
 * @module
 */

import type { Command } from "commander";
import { restoreVersion } from "../../lib/construct/restore_version.ts";
import { EXIT_RUN_NOT_SUCCESS } from "../../lib/errors.ts";
import { compareVersions, versionTimeline } from "../../lib/evals/compare.ts";
import { runEval } from "../../lib/evals/run_eval.ts";
import type { EvalResult } from "../../lib/hive/evals.ts";
import { openHive } from "../../lib/hive/open.ts";
import { createRunService } from "../../lib/runs/service.ts";
import { harnessIdOf } from "../../lib/spec/harness_id.ts";
import { loadSpec, resolveHarnessDir } from "../../lib/spec/load.ts";
import { trustGate } from "../../lib/trust/gate.ts";
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

function signed(n: number | null, digits = 3): string {
  if (n === null) return "-";
  return `${n > 0 ? "+" : ""}${Number(n.toFixed(digits))}`;
}

/**
 * Registers `eval` and `versions`.
 *
 * @param program The root command.
 */
export function registerEvalCommands(program: Command): void {
  program.command("eval")
    .description(
      "Run an eval set (evals/<set>.yaml) against the harness: one journalled run per case (exit 3 when a case fails)",
    )
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

  const versions = program.command("versions")
    .description("A harness's recorded versions; compare two (diff) or write one back (restore)");
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
