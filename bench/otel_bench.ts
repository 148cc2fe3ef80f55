/**
 * OpenTelemetry export: what it costs to turn a finished run's journal into spans and encode them as
 * OTLP (per run, for a run of two model calls and a tool call, and for one of 40 turns, with and
 * without message content), and a run's duration through the run service with the export going to a
 * live receiver, to a dead endpoint (a closed port) and unconfigured, measured side by side in
 * interleaved rounds (medians, and ratios to the unconfigured run): the export happens after the run
 * has reported its result, so the three should be within noise of each other.
 *
 * @module
 */

import { ProtobufTraceSerializer } from "@opentelemetry/otlp-transformer";
import { stringify } from "yaml";
import { closeHives, openHive } from "../lib/hive/open.ts";
import { findRun, readJournalBytes } from "../lib/journal/trace.ts";
import { parseJournal } from "../lib/journal/verify.ts";
import { otlpConfigFor } from "../lib/otel/config.ts";
import { finishedRunSpans } from "../lib/otel/export_run.ts";
import { flushTraces, otelDropped } from "../lib/otel/export_queue.ts";
import { exportResource } from "../lib/otel/exporter.ts";
import { runSpans } from "../lib/otel/run_spans.ts";
import { setFrameworkHome } from "../lib/paths.ts";
import { createRunService } from "../lib/runs/service.ts";
import { fmt, measure, report } from "./measure.ts";
import { benchTempDir, runAlone } from "./temp_dirs.ts";

const OTEL_VARIABLES = [
  "OTEL_EXPORTER_OTLP_ENDPOINT",
  "OTEL_EXPORTER_OTLP_TIMEOUT",
  "OTEL_INSTRUMENTATION_GENAI_CAPTURE_MESSAGE_CONTENT",
];

/** A scripted harness: `turns - 1` tool calls, then an answer. */
async function harness(home: string, id: string, turns: number): Promise<string> {
  const dir = `${home}/${id}`;
  await Deno.mkdir(`${dir}/workspace`, { recursive: true });
  await Deno.writeTextFile(`${dir}/workspace/n.txt`, "the order shipped on Monday. ".repeat(10));
  const call = {
    tool_calls: [{ name: "file_read", arguments: { path: "workspace/n.txt" } }],
    usage: { input_tokens: 1200, output_tokens: 40 },
  };
  const replies = [
    ...Array.from({ length: turns - 1 }, () => call),
    { text: "It shipped on Monday.", usage: { input_tokens: 1500, output_tokens: 12 } },
  ];
  await Deno.writeTextFile(
    `${dir}/harness.yaml`,
    stringify({
      id,
      model: { provider: "scripted", name: "bench-script", replies },
      tools: [{ builtin: "file_read" }],
      limits: { max_turns: turns + 1 },
    }),
  );
  return await Deno.realPath(dir);
}

/** Building and encoding one run's spans from its journal bytes. */
async function exportCost(runId: string, label: string): Promise<void> {
  const db = openHive();
  const config = otlpConfigFor("http://127.0.0.1:4318", () => undefined);
  const resource = exportResource(config);
  const row = (await finishedRunSpans(db, null, runId, config)).length;
  const bytes = await readJournalBytes(findRun(db, null, runId));
  for (const captureContent of [false, true]) {
    let size = 0;
    const t = await measure(300, () => {
      const spans = runSpans(parseJournal(bytes), { agentName: "bench", captureContent, resource });
      size = ProtobufTraceSerializer.serializeRequest(spans)!.length;
    }, 50);
    report(`export cost, ${label}${captureContent ? ", with content" : ""}`, {
      spans: String(row),
      journal: fmt(bytes.length / 1024, " KiB"),
      otlp: fmt(size / 1024, " KiB"),
      p50: fmt(t.p50_ms * 1000, " µs"),
      p99: fmt(t.p99_ms * 1000, " µs"),
    });
  }
}

/** The stand-in collector (bench/servers/otlp_sink.ts) in a process of its own. */
async function startSink(): Promise<{ url: string; stop: () => Promise<number> }> {
  const child = new Deno.Command(Deno.execPath(), {
    args: [
      "run",
      "--allow-net=127.0.0.1",
      new URL("./servers/otlp_sink.ts", import.meta.url).pathname,
    ],
    stdin: "piped",
    stdout: "piped",
    stderr: "inherit",
  }).spawn();
  const lines = child.stdout.pipeThrough(new TextDecoderStream()).getReader();
  let out = "";
  while (!out.includes("\n")) {
    const { value, done } = await lines.read();
    if (done) break;
    out += value;
  }
  return {
    url: `http://127.0.0.1:${out.trim()}`,
    async stop() {
      await child.stdin.close();
      while (true) {
        const { value, done } = await lines.read();
        if (done) break;
        out += value;
      }
      await child.status;
      return Number(out.trim().split("\n").at(-1));
    },
  };
}

function closedPort(): string {
  const listener = Deno.listen({ hostname: "127.0.0.1", port: 0 });
  const port = (listener.addr as Deno.NetAddr).port;
  listener.close();
  return `http://127.0.0.1:${port}`;
}

/** A run's duration with the export live, dead and off, in interleaved rounds. */
async function runDurations(dir: string): Promise<void> {
  const sink = await startSink();
  const modes: Record<string, Record<string, string>> = {
    unconfigured: {},
    "live receiver": { OTEL_EXPORTER_OTLP_ENDPOINT: sink.url },
    "dead endpoint": {
      OTEL_EXPORTER_OTLP_ENDPOINT: closedPort(),
      OTEL_EXPORTER_OTLP_TIMEOUT: "1000",
    },
  };
  const runs = createRunService();
  const oneRun = async () => void await (await runs.submit(dir, { input: "Where is it?" })).result;
  const medians: Record<string, number[]> = {};
  for (let round = 0; round < 5; round++) {
    for (const [mode, env] of Object.entries(modes)) {
      for (const name of OTEL_VARIABLES) Deno.env.delete(name);
      for (const [name, value] of Object.entries(env)) Deno.env.set(name, value);
      // Long enough for batches to leave during the mode's own runs; what is still queued at its
      // end is sent before the next mode starts, so no mode's export falls on another's runs.
      (medians[mode] ??= []).push((await measure(120, oneRun, 5)).p50_ms);
      await flushTraces(5000);
    }
  }
  for (const name of OTEL_VARIABLES) Deno.env.delete(name);
  const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)]!;
  const base = median(medians.unconfigured!);
  for (const [mode, xs] of Object.entries(medians)) {
    report(`run of 3 turns, export ${mode} (median of 5 rounds)`, {
      p50: fmt(median(xs), " ms"),
      "vs unconfigured": `${fmt(median(xs) / base)}x`,
    });
  }
  await runs.close(0);
  report("traces: requests to the live receiver, runs dropped (dead)", {
    requests: String(await sink.stop()),
    dropped: String(otelDropped()),
  });
}

/** Runs the benchmark. */
export async function run(): Promise<void> {
  const home = await benchTempDir("fw-bench-otel-");
  setFrameworkHome(home);
  try {
    const small = await harness(home, "small", 3);
    const large = await harness(home, "large", 40);
    const runs = createRunService();
    for (const [dir, label] of [[small, "3 turns, 2 tool calls"], [large, "40 turns"]] as const) {
      const done = await (await runs.submit(dir, { input: "Where is it?" })).result;
      await exportCost(done.run_id, label);
    }
    await runs.close();
    await runDurations(small);
  } finally {
    closeHives();
    setFrameworkHome(undefined);
  }
}

if (import.meta.main) await runAlone(run);
