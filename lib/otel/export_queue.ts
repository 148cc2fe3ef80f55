/**
 * The after-run export of this process: each finished run is queued, and the queue is exported in
 * the background in batches (like OpenTelemetry's batch span processor: one request for the runs
 * that finished within {@link BATCH_DELAY_MS}, or for {@link MAX_BATCH_RUNS} of them at once), one
 * request at a time. Nothing of it is on a run's way: a run has reported its result before it is
 * queued, and its spans are built from its journal only when its batch leaves. The queue is bounded
 * ({@link MAX_QUEUED_TRACES}); a full queue, an unreachable collector (after the exporter's bounded
 * retries) or a refusal drops the traces and counts them (`otel_dropped` in the control plane's
 * `/health`), and never fails or slows a run. At exit a process waits a little for the queue
 * ({@link flushTraces}, or the background work a command settles) and never hangs on a collector.
 *
 * @module
 */

import { trackBackground } from "../background.ts";
import { openHive } from "../hive/open.ts";
import type { ReadableSpan } from "@opentelemetry/sdk-trace";
import { type OtlpConfig, otlpConfigFromEnv } from "./config.ts";
import { exporterFor, sendSpans } from "./exporter.ts";
import { finishedRunSpans } from "./export_run.ts";

/** Runs waiting for a request at most (besides those being sent); beyond this a trace is dropped. */
export const MAX_QUEUED_TRACES = 256;
/** Runs exported in one request at most. */
export const MAX_BATCH_RUNS = 32;
/** How long a finished run waits for others to share its request. */
export const BATCH_DELAY_MS = 200;
/** How long a command waits at exit for a run's export, at most. */
export const EXIT_FLUSH_MS = 2000;

interface Job {
  runId: string;
  config: OtlpConfig;
  done: PromiseWithResolvers<void>;
}

const queue: Job[] = [];
let sending = false;
let timer: ReturnType<typeof setTimeout> | undefined;
let dropped = 0;
let warned = false;
const idle = new Set<() => void>();

/**
 * How many finished runs' traces this process could not export (queue full, collector unreachable
 * or refusing, bad settings).
 *
 * @returns The count since the process started.
 */
export function otelDropped(): number {
  return dropped;
}

function drop(count: number, why: string): void {
  dropped += count;
  if (warned) return;
  warned = true;
  console.error(
    `warning: OpenTelemetry export: ${why}; the trace is dropped (later drops are counted in /health as otel_dropped, not logged)`,
  );
}

/** Sends one batch: the runs of the same settings at the head of the queue. */
async function sendBatch(batch: Job[]): Promise<void> {
  const config = batch[0]!.config;
  const spans: ReadableSpan[] = [];
  let built = 0;
  for (const job of batch) {
    try {
      spans.push(...await finishedRunSpans(openHive(), null, job.runId, config));
      built++;
    } catch (err) {
      drop(1, `run ${job.runId}: ${(err as Error).message}`);
    }
  }
  try {
    await sendSpans(config, spans);
  } catch (err) {
    drop(built, `${built} run${built === 1 ? "" : "s"}: ${(err as Error).message}`);
  }
}

function next(): void {
  if (sending || !queue.length) {
    if (!sending) { for (const wake of idle) wake(); }
    return;
  }
  clearTimeout(timer);
  timer = undefined;
  const head = queue[0]!.config;
  const take = queue.findIndex((j, i) => i >= MAX_BATCH_RUNS || j.config !== head);
  const batch = queue.splice(0, take < 0 ? queue.length : take);
  sending = true;
  sendBatch(batch).finally(() => {
    sending = false;
    for (const job of batch) job.done.resolve();
    // A full batch, or a process flushing at exit, does not wait.
    schedule(queue.length >= MAX_BATCH_RUNS || idle.size ? 0 : BATCH_DELAY_MS);
  });
}

function schedule(delayMs: number): void {
  if (sending) return;
  if (!queue.length) return next();
  if (delayMs === 0) return next();
  timer ??= setTimeout(() => {
    timer = undefined;
    next();
  }, delayMs);
}

/** The settings of this process, read once per change of its environment (tests change it). */
let settings: { key: string; config: OtlpConfig | undefined } | undefined;

function currentConfig(): OtlpConfig | undefined {
  const config = otlpConfigFromEnv();
  const key = JSON.stringify(config ?? null);
  if (settings?.key !== key) {
    settings = { key, config };
    // Its exporter reads the same variables now, not when the first batch leaves.
    if (config) exporterFor(config);
  }
  return settings.config;
}

/**
 * Queues a finished run's export when this process exports (the `OTEL_EXPORTER_OTLP_*` variables);
 * does nothing otherwise. Returns at once. A command waits for it at exit, at most
 * {@link EXIT_FLUSH_MS}.
 *
 * @example
 * ```ts
 * queueRunTrace("run_01…"); // after the run's result is reported
 * ```
 * @param runId The finished run.
 */
export function queueRunTrace(runId: string): void {
  let config: OtlpConfig | undefined;
  try {
    config = currentConfig();
  } catch (err) {
    return drop(1, (err as Error).message);
  }
  if (!config) return;
  if (queue.length >= MAX_QUEUED_TRACES) {
    return drop(1, `${MAX_QUEUED_TRACES} traces are already waiting to be exported`);
  }
  const job: Job = { runId, config, done: Promise.withResolvers() };
  queue.push(job);
  schedule(queue.length >= MAX_BATCH_RUNS ? 0 : BATCH_DELAY_MS);
  let bound: ReturnType<typeof setTimeout> | undefined;
  const limit = new Promise<void>((r) => (bound = setTimeout(r, EXIT_FLUSH_MS)));
  trackBackground(Promise.race([job.done.promise, limit]).finally(() => clearTimeout(bound)));
}

/**
 * Sends what is queued now and waits until every export has finished, or `timeoutMs` has passed (a
 * process that stops waits a little for its traces, and never hangs on a collector).
 *
 * @param timeoutMs The most to wait.
 * @returns When the queue is empty or the time is up.
 */
export async function flushTraces(timeoutMs: number): Promise<void> {
  if (!sending && !queue.length) return;
  let limit: ReturnType<typeof setTimeout> | undefined;
  let wake: () => void = () => {};
  const done = new Promise<void>((resolve) => {
    wake = resolve;
    idle.add(wake);
    limit = setTimeout(resolve, timeoutMs);
  });
  schedule(0);
  await done;
  idle.delete(wake);
  clearTimeout(limit);
}
