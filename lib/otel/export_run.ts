/**
 * One finished run exported as one trace: its journal read back (through the one journal reader),
 * turned into spans and sent. The same function serves the run service's after-run export and
 * `framework trace <run_id> --otlp`, so a re-export is the same trace with the same spans.
 *
 * @module
 */

import type { ReadableSpan } from "@opentelemetry/sdk-trace";
import type { Resource } from "@opentelemetry/resources";
import { badInput, FrameworkError } from "../errors.ts";
import { getHarness, type HarnessRef } from "../hive/harnesses.ts";
import type { Hive } from "../hive/open.ts";
import { findRun, readJournalBytes } from "../journal/trace.ts";
import { parseJournal } from "../journal/verify.ts";
import type { OtlpConfig } from "./config.ts";
import { exportResource, sendSpans } from "./exporter.ts";
import { traceIdOf } from "./ids.ts";
import { runSpans } from "./run_spans.ts";

/** What an export sent. */
export interface ExportedTrace {
  run_id: string;
  trace_id: string;
  spans: number;
  /** The traces endpoint named on the command line (absent: the environment's). */
  endpoint?: string;
}

const resources = new Map<string, Resource>();

/**
 * The spans of a finished run, read from its journal.
 *
 * @example
 * ```ts
 * import { openHive } from "../hive/open.ts";
 * import { otlpConfigFor } from "./config.ts";
 *
 * const spans = await finishedRunSpans(openHive(), null, "run_01…", otlpConfigFor("http://127.0.0.1:4318"));
 * ```
 * @param db The hive.
 * @param harness The harness that asks, or null for a local lookup.
 * @param runId The run.
 * @param config The export settings (content capture, service name).
 * @returns The spans.
 * @throws `not_found` for an unknown run or a missing journal; `bad_input` for a run still going.
 */
export async function finishedRunSpans(
  db: Hive,
  harness: HarnessRef | null,
  runId: string,
  config: OtlpConfig,
): Promise<ReadableSpan[]> {
  const row = findRun(db, harness, runId);
  if (row.status === "running") {
    throw badInput(`Run ${runId} is still running: export it once it has finished`, {
      run_id: runId,
    });
  }
  const events = parseJournal(await readJournalBytes(row));
  let resource = resources.get(config.serviceName);
  if (!resource) resources.set(config.serviceName, resource = exportResource(config));
  return runSpans(events, {
    agentName: getHarness(db, row.harness_id)?.name ?? row.harness_id,
    captureContent: config.captureContent,
    contentLimit: config.contentLimit,
    resource,
  });
}

/**
 * Exports a finished run as one trace and waits for the collector's answer.
 *
 * @example
 * ```ts
 * import { openHive } from "../hive/open.ts";
 * import { otlpConfigFor } from "./config.ts";
 *
 * const sent = await exportRunTrace(openHive(), null, "run_01…", otlpConfigFor("http://127.0.0.1:4318"));
 * sent.trace_id; // the same on every export of this run
 * ```
 * @param db The hive.
 * @param harness The harness that asks, or null for a local lookup.
 * @param runId The run.
 * @param config Where and how.
 * @returns The trace id and the number of spans sent.
 * @throws `not_found`, `bad_input` as {@link finishedRunSpans}; `internal` when the collector could
 *   not be reached or refused the spans.
 */
export async function exportRunTrace(
  db: Hive,
  harness: HarnessRef | null,
  runId: string,
  config: OtlpConfig,
): Promise<ExportedTrace> {
  const spans = await finishedRunSpans(db, harness, runId, config);
  const where = config.url ?? "the OTEL_EXPORTER_OTLP_* endpoint";
  try {
    await sendSpans(config, spans);
  } catch (err) {
    throw new FrameworkError(
      "internal",
      `Could not export run ${runId} to ${where}: ${(err as Error).message}`,
      { run_id: runId },
    );
  }
  return {
    run_id: runId,
    trace_id: traceIdOf(runId),
    spans: spans.length,
    ...(config.url ? { endpoint: config.url } : {}),
  };
}
