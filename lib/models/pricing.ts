/**
 * Cost of model calls: usage times `model.pricing`, or a small built-in price table (USD per million
 * tokens). An unknown price gives cost 0, and the caller journals a warning.
 *
 * @module
 */

import type { ModelSpec } from "../harness_spec/schema.ts";
import type { Usage } from "./types.ts";

/** USD per million tokens. */
export interface Price {
  input_per_mtok: number;
  output_per_mtok: number;
}

/** Built-in prices by model name prefix (longest prefix wins). */
export const PRICE_TABLE: Readonly<Record<string, Price>> = {
  "gpt-4.1-nano": { input_per_mtok: 0.1, output_per_mtok: 0.4 },
  "gpt-4.1-mini": { input_per_mtok: 0.4, output_per_mtok: 1.6 },
  "gpt-4.1": { input_per_mtok: 2, output_per_mtok: 8 },
  "gpt-4o-mini": { input_per_mtok: 0.15, output_per_mtok: 0.6 },
  "gpt-4o": { input_per_mtok: 2.5, output_per_mtok: 10 },
  "o4-mini": { input_per_mtok: 1.1, output_per_mtok: 4.4 },
  "claude-3-5-haiku": { input_per_mtok: 0.8, output_per_mtok: 4 },
  "claude-haiku-4-5": { input_per_mtok: 1, output_per_mtok: 5 },
  "claude-sonnet-4": { input_per_mtok: 3, output_per_mtok: 15 },
  "claude-opus-4": { input_per_mtok: 15, output_per_mtok: 75 },
};

/**
 * The price of a model: its `pricing`, else the table entry with the longest matching prefix.
 *
 * @param model The model block.
 * @returns The price, or undefined when unknown.
 */
export function priceOf(model: Pick<ModelSpec, "pricing" | "name">): Price | undefined {
  if (model.pricing) return model.pricing;
  const name = model.name ?? "";
  let best: string | undefined;
  for (const prefix of Object.keys(PRICE_TABLE)) {
    if (name.startsWith(prefix) && (!best || prefix.length > best.length)) best = prefix;
  }
  return best ? PRICE_TABLE[best] : undefined;
}

/**
 * The USD cost of a usage at a price.
 *
 * @example
 * ```ts
 * costOf({ input_tokens: 1_000_000, output_tokens: 0 }, { input_per_mtok: 0.15, output_per_mtok: 0.6 }); // 0.15
 * ```
 * @param usage Token usage.
 * @param price The price (undefined gives 0).
 * @returns USD.
 */
export function costOf(usage: Usage, price: Price | undefined): number {
  if (!price) return 0;
  return (usage.input_tokens * price.input_per_mtok + usage.output_tokens * price.output_per_mtok) /
    1_000_000;
}
