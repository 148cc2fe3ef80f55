/**
 * Where a model block sends a key: its provider, its endpoint and the environment variable its key
 * is read from, resolved the way the provider resolves them (an absent `api_key_env` is the
 * provider's usual variable; an absent `base_url` is the provider's own endpoint). A model chosen at
 * run time — a live model change, a fork's model override — may only be one of the combinations the
 * harness's `harness.yaml` itself uses, so no request decides where a key goes.
 *
 * @module
 */

import { badInput } from "../errors.ts";
import type { HarnessSpec, ModelSpec } from "../harness_spec/schema.ts";

/** The environment variable that holds each provider's key by default. */
export const DEFAULT_KEY_ENV: Readonly<Record<string, string | undefined>> = {
  openai: "OPENAI_API_KEY",
  anthropic: "ANTHROPIC_API_KEY",
  "openai-compatible": undefined,
};

/** A model block's destination: provider, endpoint and key, as the provider resolves them. */
export interface ModelEndpoint {
  provider: string;
  /** The endpoint without trailing slashes; null for the provider's own. */
  base_url: string | null;
  /** The environment variable the key is read from; null when no key is sent. */
  key_env: string | null;
}

/**
 * The destination of a model block, as its provider resolves it.
 *
 * @example
 * ```ts
 * modelEndpoint({ provider: "openai", name: "gpt-4.1" });
 * // { provider: "openai", base_url: null, key_env: "OPENAI_API_KEY" }
 * ```
 * @param model The model block.
 * @returns Provider, endpoint and key variable.
 */
export function modelEndpoint(model: ModelSpec): ModelEndpoint {
  if (model.provider === "scripted") return { provider: "scripted", base_url: null, key_env: null };
  return {
    provider: model.provider,
    base_url: model.base_url?.replace(/\/+$/, "") || null,
    key_env: model.api_key_env ?? DEFAULT_KEY_ENV[model.provider] ?? null,
  };
}

/**
 * Every destination `harness.yaml` sends a key to: `model`, the playbooks' models and
 * `evolution.model`.
 *
 * @param spec The spec.
 * @returns The distinct destinations, in spec order.
 */
export function endpointsOf(spec: HarnessSpec): ModelEndpoint[] {
  const out: ModelEndpoint[] = [];
  for (
    const m of [spec.model, ...(spec.playbooks ?? []).map((p) => p.model), spec.evolution?.model]
  ) {
    if (!m) continue;
    const e = modelEndpoint(m);
    if (!out.some((o) => sameEndpoint(o, e))) out.push(e);
  }
  return out;
}

function sameEndpoint(a: ModelEndpoint, b: ModelEndpoint): boolean {
  return a.provider === b.provider && a.base_url === b.base_url && a.key_env === b.key_env;
}

/** Describes a destination for a message. */
function describe(e: ModelEndpoint): string {
  if (e.provider === "scripted") return "scripted";
  const where = e.base_url === null ? "its own endpoint" : `base_url ${JSON.stringify(e.base_url)}`;
  const key = e.key_env === null ? "no key" : `the key in ${e.key_env}`;
  return `${e.provider} with ${where} and ${key}`;
}

/**
 * Checks that a model chosen at run time (a live model change, a fork's model override) sends its
 * key only where `harness.yaml` already sends that key: its provider, endpoint and key variable, as
 * the provider resolves them, must be a combination the spec uses together. A block that leaves
 * out `api_key_env` for an endpoint the spec pairs with one key gets that key. The scripted
 * provider sends nothing and is always allowed.
 *
 * @example
 * ```ts
 * import { loadSpec } from "../harness_spec/load.ts";
 *
 * // harness.yaml: model {provider: openai-compatible, base_url: http://127.0.0.1:11434/v1}
 * const { spec } = await loadSpec("./harnesses/local");
 * allowedRuntimeModel({ provider: "openai", name: "x", base_url: "http://127.0.0.1:11434/v1" }, spec);
 * // throws bad_input: openai would send OPENAI_API_KEY there
 * ```
 * @param model The model asked for.
 * @param spec The harness's spec (the run's snapshot, or the parent's for a fork).
 * @returns The model to use (with the paired `api_key_env` filled in).
 * @throws `bad_input` naming the combination and the ones the harness uses.
 */
export function allowedRuntimeModel(model: ModelSpec, spec: HarnessSpec): ModelSpec {
  const asked = modelEndpoint(model);
  if (asked.provider === "scripted") return model;
  const used = endpointsOf(spec);
  if (used.some((u) => sameEndpoint(u, asked))) return model;
  if (model.api_key_env === undefined) {
    const paired = used.filter((u) =>
      u.provider === asked.provider && u.base_url === asked.base_url && u.key_env !== null
    );
    if (paired.length === 1) return { ...model, api_key_env: paired[0]!.key_env! };
  }
  const usable = used.filter((u) => u.provider !== "scripted").map(describe);
  throw badInput(
    `The model ${describe(asked)} is not one this harness names: a live model change or a fork ` +
      `may only use a provider, base_url and key that harness.yaml uses together (model, a ` +
      `playbook's model, evolution.model)${
        usable.length ? `, here: ${usable.join("; ")}` : ", and it uses none but scripted"
      }. Choose one of those, or edit harness.yaml to use the model there first`,
    { field: "model", allowed: used },
  );
}
