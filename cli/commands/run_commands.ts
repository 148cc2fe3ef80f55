/**
 * Verbs over runs: run, serve, runs, stats, trace.
 *
 * @module
 */

import type { Command } from "commander";
import { verbDescription } from "../verb_table.ts";
import { resolve } from "node:path";
import { settleBackground } from "../../lib/background.ts";
import { badInput, EXIT_RUN_NOT_SUCCESS, notFound } from "../../lib/errors.ts";
import { openHive } from "../../lib/hive/open.ts";
import { listRuns } from "../../lib/hive/runs.ts";
import { harnessStats } from "../../lib/hive/stats.ts";
import { describeEvent } from "../../lib/journal/describe.ts";
import { findRun, getTrace, readJournalBytes, verifyTrace } from "../../lib/journal/trace.ts";
import { otlpConfigFor } from "../../lib/otel/config.ts";
import { exportRunTrace } from "../../lib/otel/export_run.ts";
import type { Integrity } from "../../lib/journal/verify.ts";
import { RUN_STATUSES, type RunResult } from "../../lib/run_types.ts";
import { harnessIdOf } from "../../lib/harness_spec/harness_id.ts";
import { errorEnvelope } from "../../lib/envelope.ts";
import { ndjsonLine } from "../../lib/runs/frames.ts";
import { serveLines } from "../../lib/runs/serve_lines.ts";
import { createRunService, type RunService, type Submission } from "../../lib/runs/service.ts";
import { loadSpecCached } from "../../lib/harness_spec/cache.ts";
import type { TrustedFolder } from "../../lib/trust/trust_gate.ts";
import { decideInPlace } from "./approval_prompt.ts";
import { busyPolicy, readRequest, RUN_FLAGS } from "../../lib/requests.ts";
import { submitToThread, threadNamed } from "../../lib/runs/threads.ts";
import { resolveHarnessDir } from "../../lib/harness_spec/load.ts";
import { wholeNumber } from "../../lib/whole_number.ts";
import { trustGate } from "../../lib/trust/trust_gate.ts";
import { type GlobalOptions, reportError, runVerb, writeErr, writeOut } from "../output.ts";

function summary(r: RunResult): string {
  const parts = [
    r.status,
    `${r.turns} turn${r.turns === 1 ? "" : "s"}`,
    `$${r.cost_usd.toFixed(6)}`,
    `${r.duration_ms} ms`,
    r.run_id,
  ];
  const why = r.error ? `\n${r.error.reason}: ${r.error.message}` : "";
  return parts.join(" · ") + why;
}

/** Where a run reported at the terminal came from: what deciding its approval requests needs. */
export interface ReportedRun {
  runs: RunService;
  trusted: TrustedFolder;
}

/**
 * Shows a submitted run the way `run` does: streamed (readable lines, or NDJSON frames with
 * `--json`) or as its result, with exit code 0 for success and 3 for any other status. When its
 * harness asks for approvals, each request is asked about in place on a terminal, or explained.
 *
 * @param run The submitted run.
 * @param o `--stream` and `--json`.
 * @param from The run service and the harness, for deciding the run's approval requests.
 * @returns The verb's answer (a streamed run exits here).
 */
export async function reportRun(
  run: Submission,
  o: GlobalOptions & { stream?: boolean },
  from: ReportedRun,
): Promise<{ data: RunResult; text: string; exitCode: number }> {
  const { spec } = await loadSpecCached(from.trusted.dir);
  if (spec.approvals) {
    const harness = { id: spec.id, dir: from.trusted.dir };
    decideInPlace(run, {
      db: openHive(),
      runs: from.runs,
      target: from.trusted,
      harness,
      dir: from.trusted.dir,
      interactive: Deno.stdin.isTerminal(),
    }).catch((err) => reportError(err, false));
  }
  if (o.stream) {
    // For a program: NDJSON frames; for a person: one readable line per event as it happens.
    const t0 = performance.now();
    for await (const frame of run.frames()) {
      if (o.json) writeOut(ndjsonLine(frame));
      else if (frame.frame === "run_accepted") writeErr(`${frame.run_id} accepted`);
      else if (frame.frame === "trace") {
        writeErr(
          `${String(frame.seq).padStart(4)} +${
            String(Math.round(performance.now() - t0)).padStart(6)
          } ms  ${describeEvent(frame)}`,
        );
      }
    }
    const result = await run.result;
    if (!o.json) {
      writeErr(summary(result));
      writeOut(result.output);
    }
    await settleBackground();
    Deno.exit(result.status === "success" ? 0 : EXIT_RUN_NOT_SUCCESS);
  }
  const result = await run.result;
  if (!o.json) writeErr(summary(result));
  return {
    data: result,
    text: result.output,
    exitCode: result.status === "success" ? 0 : EXIT_RUN_NOT_SUCCESS,
  };
}

/**
 * Registers the run verbs.
 *
 * @param program The root command.
 */
export function registerRunCommands(program: Command): void {
  registerRun(program);
  registerServe(program);
  registerRuns(program);
  registerStats(program);
  registerTrace(program);
}

/** Registers `framework run`. */
function registerRun(program: Command): void {
  program.command("run")
    .description(verbDescription("run"))
    .argument("<dir>", "the harness folder")
    .option("--input <text>", "the input, always taken as literal text")
    .option("--input-file <path>", "a file inside the harness folder whose content is the input")
    .option(
      "--stream",
      "follow the run as it happens: a line per event (with --json: NDJSON frames run_accepted, trace…, run_result)",
    )
    .option(
      "--thread <id>",
      "a turn of a thread: its id, or new (the run is given the thread's earlier turns)",
    )
    .option(
      "--busy <policy>",
      "when a run of the thread is going: reject (exit 2), steer (the input steers it) or queue",
      "reject",
    )
    .option("--approve", "trust the folder if it is not trusted yet")
    .option("--json", "print the ok-wrapped JSON result")
    .action((
      dir: string,
      o: GlobalOptions & {
        input?: string;
        inputFile?: string;
        stream?: boolean;
        approve?: boolean;
        thread?: string;
        busy: string;
      },
    ) =>
      runVerb(o, async () => {
        const request = readRequest(RUN_FLAGS, {
          ...(o.input !== undefined ? { input: o.input } : {}),
          ...(o.inputFile !== undefined ? { input_file: o.inputFile } : {}),
        });
        const busy = busyPolicy(o.busy);
        const trusted = await trustGate(await resolveHarnessDir(dir), { approve: !!o.approve });
        const runs = createRunService();
        if (o.thread === undefined) {
          return await reportRun(await runs.submit(trusted, request), o, { runs, trusted });
        }
        const db = openHive();
        const harness = await harnessIdOf(trusted.dir);
        const threadId = threadNamed(db, harness, o.thread, "cli");
        const sent = await submitToThread(db, runs, trusted, harness, threadId, request, {
          busy,
          viewer: null,
        });
        if (sent.kind === "run") {
          return await reportRun(sent.submission, o, { runs, trusted });
        }
        const steered = { thread_id: threadId, run_id: sent.run_id, message_id: sent.message_id };
        return {
          data: steered,
          text:
            `Steering message ${sent.message_id} queued for ${sent.run_id} (thread ${threadId})`,
        };
      })
    );
}

/** Registers `framework serve`. */
function registerServe(program: Command): void {
  program.command("serve")
    .description(verbDescription("serve"))
    .argument("<dir>", "the harness folder")
    .option("--approve", "trust the folder if it is not trusted yet")
    .action(async (dir: string, o: { approve?: boolean }) => {
      try {
        const trusted = await trustGate(await resolveHarnessDir(dir), { approve: !!o.approve });
        await serveLines(Deno.stdin.readable, writeOut, createRunService(), trusted);
        await settleBackground();
        Deno.exit(0);
      } catch (err) {
        // The protocol on stdout is NDJSON frames, so a start-up failure is an error frame too.
        const code = reportError(err, false);
        writeOut(JSON.stringify({ frame: "error", ...errorEnvelope(err) }));
        Deno.exit(code);
      }
    });
}

/** Registers `framework runs`. */
function registerRuns(program: Command): void {
  program.command("runs")
    .description(verbDescription("runs"))
    .argument("<dir>", "the harness folder")
    .option("--status <status>", `only runs with this status: ${RUN_STATUSES.join(", ")}, running`)
    .option("--limit <n>", "at most this many (default 50)")
    .option("--before <run_id>", "only runs older than this one (paging)")
    .option("--json", "print the ok-wrapped JSON result")
    .action((
      dir: string,
      o: GlobalOptions & { status?: string; limit?: string; before?: string },
    ) =>
      runVerb(o, async () => {
        const harness = await harnessIdOf(dir);
        const id = harness.id;
        const limit = wholeNumber(o.limit, {
          name: "--limit",
          min: 1,
          max: 1000,
          fallback: undefined,
          emptyIsAbsent: false,
        });
        const runs = listRuns(openHive(), harness, {
          ...(o.status ? { status: o.status } : {}),
          ...(limit ? { limit } : {}),
          ...(o.before ? { before: o.before } : {}),
        });
        const text = runs.length
          ? runs.map((r) =>
            `${r.run_id}  ${r.status.padEnd(14)} ${String(r.turns).padStart(3)} turns  $${
              r.cost_usd.toFixed(6)
            }  ${r.duration_ms ?? "-"} ms  ${r.started_at}`
          ).join("\n")
          : "No runs yet.";
        return { data: { harness_id: id, runs }, text };
      })
    );
}

/** Registers `framework stats`. */
function registerStats(program: Command): void {
  program.command("stats")
    .description(verbDescription("stats"))
    .argument("<dir>", "the harness folder")
    .option("--json", "print the ok-wrapped JSON result")
    .action((dir: string, o: GlobalOptions) =>
      runVerb(o, async () => {
        const harness = await harnessIdOf(dir);
        const id = harness.id;
        const s = harnessStats(openHive(), harness);
        const rate = s.runs.success_rate === null
          ? "-"
          : `${(s.runs.success_rate * 100).toFixed(1)}%`;
        const lines = [
          `${id}: ${s.runs.total} runs, success ${rate}, $${s.runs.cost_usd.toFixed(6)}, avg ${
            s.runs.avg_turns?.toFixed(2) ?? "-"
          } turns, p50 ${s.runs.p50_duration_ms ?? "-"} ms`,
          `by status: ${Object.entries(s.runs.by_status).map(([k, v]) => `${k} ${v}`).join(", ")}`,
          ...s.failure_groups.map((g) => `  ${String(g.count).padStart(5)}  ${g.signature}`),
        ];
        return { data: s, text: lines.join("\n") };
      })
    );
}

/** Registers `framework trace`. */
function registerTrace(program: Command): void {
  program.command("trace")
    .description(verbDescription("trace"))
    .argument("[run_id]", "the run id (or --last with --harness)")
    .option("--harness <dir>", "only find the run in this harness")
    .option("--last", "the newest run of the --harness folder")
    .option("--verify", "check the hash chain (exit 2 when broken)")
    .option("--export <file>", "write the journal bytes verbatim to a file (- for stdout)")
    .option(
      "--otlp [endpoint]",
      "export the finished run as an OpenTelemetry trace to this OTLP base URL (/v1/traces is appended; without one, OTEL_EXPORTER_OTLP_ENDPOINT)",
    )
    .option("--json", "print the ok-wrapped JSON result")
    .action((
      given: string | undefined,
      o: GlobalOptions & {
        harness?: string;
        verify?: boolean;
        export?: string;
        last?: boolean;
        otlp?: string | boolean;
      },
    ) =>
      runVerb(o, async () => {
        const harnessId = o.harness ? await harnessIdOf(o.harness) : null;
        const db = openHive();
        if (o.last && given) throw badInput("Give a run id or --last, not both");
        if (!o.last && !given) throw badInput("Give a run id, or --last --harness <dir>");
        let runId = given ?? "";
        if (o.last) {
          if (!harnessId) {
            throw badInput("--last needs --harness <dir>: the harness whose runs to look at");
          }
          const newest = listRuns(db, harnessId, { limit: 1 })[0];
          if (!newest) {
            throw notFound(`The harness ${JSON.stringify(harnessId.id)} has no runs yet`);
          }
          runId = newest.run_id;
        }
        if (o.otlp !== undefined && o.otlp !== false) {
          if (o.export !== undefined || o.verify) {
            throw badInput("Give one of --otlp, --export and --verify");
          }
          const config = otlpConfigFor(typeof o.otlp === "string" ? o.otlp : undefined);
          const sent = await exportRunTrace(db, harnessId, runId, config);
          return {
            data: sent,
            text: `Exported ${sent.run_id} as trace ${sent.trace_id} (${sent.spans} spans) to ${
              sent.endpoint ?? "the OTEL_EXPORTER_OTLP_* endpoint"
            }`,
          };
        }
        if (o.export !== undefined) {
          const bytes = await readJournalBytes(findRun(db, harnessId, runId));
          if (o.export === "-") {
            await Deno.stdout.write(bytes);
            Deno.exit(0);
          }
          await Deno.writeFile(resolve(o.export), bytes);
          return {
            data: { run_id: runId, exported: resolve(o.export), bytes: bytes.length },
            text: `Wrote ${bytes.length} bytes to ${o.export}`,
          };
        }
        const chain = (i: Integrity) =>
          i.ok
            ? `hash chain ok (${i.checked} events)`
            : `hash chain BROKEN at seq ${i.broken_at} (${i.checked} events verified before it)`;
        if (o.verify) {
          // Streamed from disk: memory bounded by one line, whatever the journal's size.
          const { run, integrity } = await verifyTrace(db, harnessId, runId);
          return {
            data: { run_id: run.run_id, harness_id: run.harness_id, integrity },
            text: chain(integrity),
            exitCode: integrity.ok ? 0 : 2,
          };
        }
        const trace = await getTrace(db, harnessId, runId);
        const t0 = trace.events[0] ? Date.parse(trace.events[0].ts) : 0;
        const lines = [
          `${trace.run_id} · ${trace.harness_id} · ${trace.status}`,
          chain(trace.integrity),
          ...trace.events.map((e) =>
            `${String(e.seq).padStart(4)} +${String(Date.parse(e.ts) - t0).padStart(6)} ms  ${
              describeEvent(e)
            }`
          ),
        ];
        const { run: _run, ...data } = trace;
        return { data, text: lines.join("\n") };
      })
    );
}
