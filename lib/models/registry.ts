/**
 * Creates the provider for a `model` block. The scripted provider is only ever used when the spec
 * names it; it never stands in for a real provider.
 *
 * @module
 */

import type { ModelSpec } from "../harness_spec/schema.ts";
import { createAiSdkProvider } from "./ai_sdk.ts";
import { createScriptedModel } from "./scripted.ts";
import type { ModelProvider } from "./types.ts";

/** What a provider may need besides the model block. */
export interface ProviderContext {
  /** The harness folder (for its `.env`). */
  harnessDir: string;
  /** The run's input text: the scripted provider chooses its scenario with it. */
  input: string;
  /**
   * Model calls a run taken up from its journal already made (a scripted model goes on with the
   * reply after them).
   */
  callsMade?: number;
}

/**
 * Creates a model provider.
 *
 * @param model The model block.
 * @param ctx The harness context.
 * @returns The provider.
 */
export function createProvider(model: ModelSpec, ctx: ProviderContext): ModelProvider {
  if (model.provider === "scripted") return createScriptedModel(model, ctx.input, ctx.callsMade);
  return createAiSdkProvider(model, ctx.harnessDir);
}
