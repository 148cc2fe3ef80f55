/**
 * The after-run export of this process: each finished run is queued and exported in the background,
 * never on the run's way (the run has reported its result before it is queued), through a bounded
 * queue worked by a few exports at a time. A full queue, an unreachable collector (after the
 * exporter's bounded retries) or a refusal drops the run's trace and counts it (`otel_dropped` in the
 * control plane's `/health`); nothing of it ever fails or slows a run. At exit, a process waits a
 * little for the queue ({@link flushTraces}, or the background work a command settles) and never
 * hangs on a collector.
 *
 * @module
 */

import { trackBackground } from "../background.ts";
import { openHive } from "../hive/open.ts";
import { type OtlpConfig, otlpConfigFromEnv } from "./config.ts";
import { sendSpans } from "./exporter.ts";
import { finishedRunSpans } from "./export_run.ts";

/** Runs waiting to be exported at most; beyond this a finished run's trace is dropped. */
export const MAX_QUEUED_TRACES = 256;
/** Exports under way at once. */
const CONCURRENT_EXPORTS = 2;
/** How long a command waits at exit for a run's export, at most. */
export const EXIT_FLUSH_MS = 2000;

interface Job {
  runId: string;
  config: OtlpConfig;
  done: PromiseWithResolvers<void>;
}

const queue: Job[] = [];
let active = 0;
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

function drop(why: string): void {
  dropped++;
  if (warned) return;
  warned = true;
  console.error(
    `warning: OpenTelemetry export: ${why}; the trace is dropped (later drops are counted, not logged)`,
  );
}

async function work(job: Job): Promise<void> {
  const spans = await finishedRunSpans(openHive(), null, job.runId, job.config);
  await sendSpans(job.config, spans);
}

function pump(): void {
  while (active < CONCURRENT_EXPORTS && queue.length) {
    const job = queue.shift()!;
    active++;
    work(job)
      .catch((err) => drop(`run ${job.runId}: ${(err as Error).message}`))
      .finally(() => {
        active--;
        job.done.resolve();
        pump();
        if (!active && !queue.length) { for (const wake of idle) wake(); }
      });
  }
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
    config = otlpConfigFromEnv();
  } catch (err) {
    return drop((err as Error).message);
  }
  if (!config) return;
  if (queue.length >= MAX_QUEUED_TRACES) {
    return drop(`${MAX_QUEUED_TRACES} traces are already waiting to be exported`);
  }
  const job: Job = { runId, config, done: Promise.withResolvers() };
  queue.push(job);
  pump();
  let timer: ReturnType<typeof setTimeout> | undefined;
  const bound = new Promise<void>((r) => (timer = setTimeout(r, EXIT_FLUSH_MS)));
  trackBackground(Promise.race([job.done.promise, bound]).finally(() => clearTimeout(timer)));
}

/**
 * Waits until every queued export has finished, or `timeoutMs` has passed (a process that stops
 * waits a little for its traces, and never hangs on a collector).
 *
 * @param timeoutMs The most to wait.
 * @returns When the queue is empty or the time is up.
 */
export async function flushTraces(timeoutMs: number): Promise<void> {
  if (!active && !queue.length) return;
  let timer: ReturnType<typeof setTimeout> | undefined;
  let wake: () => void = () => {};
  await new Promise<void>((resolve) => {
    wake = resolve;
    idle.add(wake);
    timer = setTimeout(resolve, timeoutMs);
  });
  idle.delete(wake);
  clearTimeout(timer);
}
