/**
 * The model a run uses: its spec, its provider (with the runner's retries, each one journalled as
 * `model_retry`), its price, and the change of model at a turn boundary (`model_changed`, or a
 * warning when the new model cannot be made and the run keeps its own).
 *
 * @module
 */

import { FrameworkError } from "../errors.ts";
import { type Price, priceOf } from "../models/pricing.ts";
import { createProvider } from "../models/registry.ts";
import { withRetries } from "../models/retry.ts";
import type { ModelProvider } from "../models/types.ts";
import type { ModelSpec } from "../harness_spec/schema.ts";
import { modelLabel } from "./control_queue.ts";
import type { LaunchedRun, RunSession } from "./run_session.ts";

/** The model of a run, as it is now. */
export interface ModelInUse {
  spec: ModelSpec;
  price: Price | undefined;
  /** Whether the run has said that the price is unknown. */
  warnedPrice: boolean;
  /** The provider as made, and with retries: set by {@link connectModel}. */
  raw?: ModelProvider;
  provider?: ModelProvider;
}

/**
 * The model a run starts with (its provider is made by {@link connectModel}).
 *
 * @param run The launched run (its controls show the model).
 * @param spec The model block.
 * @returns The model in use.
 */
export function createModelInUse(run: LaunchedRun, spec: ModelSpec): ModelInUse {
  run.controls.state.model = modelLabel(spec);
  return { spec, price: priceOf(spec), warnedPrice: false };
}

/** Makes a provider as the run's options say (tests and embedders may replace it). */
function makeProvider(session: RunSession, spec: ModelSpec): ModelProvider {
  const { options, inputText } = session.run.prepared;
  const make = options.createProvider ?? createProvider;
  // A run taken up after an approval goes on from the calls its parent made.
  const callsMade = options.resumed?.events.filter((e) =>
    e.type === "model_response" || e.type === "model_retry"
  ).length;
  return make(spec, {
    harnessDir: session.loaded.dir,
    input: inputText,
    ...(callsMade ? { callsMade } : {}),
  });
}

/** A provider with the runner's retries, each journalled. */
function retrying(session: RunSession, raw: ModelProvider, spec: ModelSpec): ModelProvider {
  return withRetries(
    raw,
    { maxRetries: spec.max_retries ?? 3 },
    (notice) => session.emit("model_retry", { turn: session.turns, ...notice }),
  );
}

/**
 * Makes the run's provider (after the input passed the guardrails: a provider that cannot be made
 * ends the run with its error).
 *
 * @param session The run.
 */
export function connectModel(session: RunSession): void {
  const raw = makeProvider(session, session.model.spec);
  session.model.raw = raw;
  session.model.provider = retrying(session, raw, session.model.spec);
}

/**
 * The provider the next model call uses.
 *
 * @param session The run.
 * @returns The provider.
 */
export function providerOf(session: RunSession): ModelProvider {
  const provider = session.model.provider;
  if (!provider) throw new FrameworkError("internal", "The run's model was not connected");
  return provider;
}

/**
 * Uses another model from the next call on (a live change, a playbook's model). A scripted model
 * named without replies of its own goes on with the current script.
 *
 * @param session The run.
 * @param next The model block.
 * @param turn The turn it applies from.
 * @param by Who asked.
 * @returns Whether the model changed (else a warning says why the run keeps its own).
 */
export function useModel(session: RunSession, next: ModelSpec, turn: number, by: string): boolean {
  const current = session.model;
  const from = modelLabel(current.spec);
  const keepScript = next.provider === "scripted" && !next.replies && !next.scenarios &&
    current.spec.provider === "scripted";
  const resolved: ModelSpec = keepScript ? { ...current.spec, name: next.name } : next;
  let raw: ModelProvider;
  try {
    raw = keepScript && current.raw
      ? { ...current.raw, model: resolved.name ?? "scripted" }
      : makeProvider(session, resolved);
  } catch (err) {
    session.emit("warning", {
      code: "model_change_failed",
      turn,
      message: `The run keeps ${from}: ${modelLabel(next)} could not be used: ${
        (err as Error).message
      }`,
    });
    return false;
  }
  session.model = {
    spec: resolved,
    price: priceOf(resolved),
    warnedPrice: false,
    raw,
    provider: retrying(session, raw, resolved),
  };
  session.run.controls.state.model = modelLabel(resolved);
  session.emit("model_changed", { from, to: modelLabel(resolved), turn, by });
  return true;
}
