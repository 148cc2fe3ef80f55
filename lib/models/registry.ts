/**
 * Creates the provider for a `model` block. The scripted provider is only ever used when the spec
 * names it; it never stands in for a real provider.
 *
 * @module
 */

import type { ModelSpec } from "../spec/schema.ts";
import { createScriptedModel } from "./scripted.ts";
import { type ModelProvider, ProviderError } from "./types.ts";

/** What a provider may need besides the model block. */
export interface ProviderContext {
  /** The harness folder (for its `.env`). */
  harnessDir: string;
}

/**
 * Creates a model provider.
 *
 * @param model The model block.
 * @param _ctx The harness context.
 * @returns The provider.
 */
export function createProvider(model: ModelSpec, _ctx: ProviderContext): ModelProvider {
  if (model.provider === "scripted") return createScriptedModel(model);
  throw new ProviderError(`The ${model.provider} provider is not available in this build`, {
    code: "unsupported_provider",
    retryable: false,
  });
}
