/**
 * Hooks: code called at `run_start`, `before_model_call`, `after_tool_call` and `run_end` with a
 * read-only copy of the event. A failing hook is journalled and never stops the run.
 *
 * @module
 */

import { entryName } from "../harness_spec/entries.ts";
import type { HarnessSpec } from "../harness_spec/schema.ts";
import type { Grant, SandboxPool } from "../tools/sandbox.ts";

/** When a hook is called. */
export type HookEvent = "run_start" | "before_model_call" | "after_tool_call" | "run_end";

/** The hooks of a run, callable by event. */
export type HookRunner = (on: HookEvent, event: Record<string, unknown>) => Promise<void>;

/**
 * Builds a function that calls every hook registered for an event, journalling each outcome.
 *
 * @param spec The spec snapshot.
 * @param sandboxes Where hooks run.
 * @param defaultTimeoutS Time limit of hooks without `timeout_s`.
 * @param emit Journals a `hook` event.
 * @returns The hook runner (a no-op when there are no hooks).
 */
export function buildHooks(
  spec: HarnessSpec,
  sandboxes: SandboxPool,
  defaultTimeoutS: number,
  emit: (type: string, payload: Record<string, unknown>) => void,
): HookRunner {
  const hooks = (spec.hooks ?? []).map((raw) => {
    const e = raw as Record<string, unknown>;
    return {
      name: entryName(e)!,
      on: e.on as HookEvent,
      ref: e.code as string,
      timeoutMs: ((e.timeout_s as number | undefined) ?? defaultTimeoutS) * 1000,
      grant: e.permissions as Grant | undefined,
    };
  });
  if (hooks.length === 0) return () => Promise.resolve();
  return async (on, event) => {
    for (const h of hooks.filter((x) => x.on === on)) {
      const t0 = performance.now();
      try {
        const { logs } = await sandboxes.for(h.grant).call(h.ref, structuredClone(event), {
          hook: h.name,
          on,
        }, h.timeoutMs);
        emit("hook", {
          name: h.name,
          on,
          ok: true,
          duration_ms: Math.round(performance.now() - t0),
          ...(logs.length ? { logs } : {}),
        });
      } catch (err) {
        emit("hook", {
          name: h.name,
          on,
          ok: false,
          error: {
            code: (err as { code?: string }).code ?? "failed",
            message: (err as Error).message,
          },
          duration_ms: Math.round(performance.now() - t0),
        });
      }
    }
  };
}
