/**
 * Bounded retries of model calls: 429 and 5xx (and timeouts, and unreachable servers) are retried
 * with exponential backoff, honouring `Retry-After`, before the run gives up. Each retry is reported
 * so the runner can journal it.
 *
 * @module
 */

import {
  type ModelProvider,
  type ModelRequest,
  type ModelResponse,
  ProviderError,
} from "./types.ts";
import { sleep } from "../sleep.ts";

/** Retry policy. */
export interface RetryPolicy {
  /** Retries after the first attempt (default 3). */
  maxRetries: number;
  /** First backoff in ms, doubled each time (default 500). */
  baseDelayMs: number;
  /** Longest wait, also for `Retry-After` (default 30 s). */
  maxDelayMs: number;
}

/** What a retry looked like. */
export interface RetryNotice {
  attempt: number;
  delay_ms: number;
  status: number | null;
  code: string;
  message: string;
}

/**
 * Wraps a provider so retryable failures are retried.
 *
 * @example
 * ```ts
 * import type { JournalWriter } from "../journal/writer.ts";
 * import { loadSpec } from "../harness_spec/load.ts";
 * import { createProvider } from "./registry.ts";
 *
 * declare const journal: JournalWriter; // the run's journal
 * const { dir, spec } = await loadSpec("./harnesses/hello");
 * const provider = createProvider(spec.model, { harnessDir: dir, input: "Hi" });
 * const p = withRetries(provider, { maxRetries: 3 }, (n) => {
 *   journal.append("model_retry", { ...n });
 * });
 * ```
 * @param provider The provider.
 * @param policy Retry policy (partial).
 * @param onRetry Called before each retry.
 * @returns The wrapped provider.
 */
export function withRetries(
  provider: ModelProvider,
  policy: Partial<RetryPolicy> = {},
  onRetry?: (notice: RetryNotice) => void,
): ModelProvider {
  const { maxRetries = 3, baseDelayMs = 500, maxDelayMs = 30_000 } = policy;
  return {
    ...provider,
    async generate(request: ModelRequest): Promise<ModelResponse> {
      for (let attempt = 0;; attempt++) {
        try {
          return await provider.generate(request);
        } catch (err) {
          if (
            !(err instanceof ProviderError) || !err.retryable || attempt >= maxRetries ||
            request.signal.aborted
          ) throw err;
          const hinted = err.retryAfterS;
          const backoff = baseDelayMs * 2 ** attempt * (0.8 + Math.random() * 0.4);
          const delay = Math.min(
            maxDelayMs,
            hinted !== undefined && Number.isFinite(hinted) ? hinted * 1000 : backoff,
          );
          onRetry?.({
            attempt: attempt + 1,
            delay_ms: Math.round(delay),
            status: err.status ?? null,
            code: err.code,
            message: err.message,
          });
          await sleep(delay, request.signal);
        }
      }
    },
  };
}
