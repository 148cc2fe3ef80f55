/**
 * Guardrails: checks that halt a run (`guardrail_halt`). Builtins `max_cost`, `max_tool_calls`,
 * `deny_pattern` (input, output, tool arguments) and `allow_tools`, `limits.max_cost_usd`, and code
 * guardrails in the sandbox. A guardrail that fails to run halts the run too: a safety check never
 * passes by accident.
 *
 * @module
 */

import { entryName } from "../harness_spec/entries.ts";
import type { HarnessSpec } from "../harness_spec/schema.ts";
import type { Grant, SandboxPool } from "../tools/sandbox.ts";

/** Where in a run a guardrail looks. */
export type GuardStage = "input" | "model_response" | "tool_call";

/** What a guardrail sees. */
export interface GuardState {
  stage: GuardStage;
  turn: number;
  input: string;
  /** The model's text (stage `model_response`). */
  text?: string;
  /** The tool about to run (stage `tool_call`). */
  tool?: { name: string; arguments: Record<string, unknown> };
  /** Cost so far, USD. */
  cost_usd: number;
  /** Tool calls so far, including the one being checked. */
  tool_calls: number;
}

/** One guardrail. */
export interface Guardrail {
  name: string;
  /** Its builtin name, or `code`. */
  kind: string;
  /** The reason it trips, or null to let the run go on. */
  check(state: GuardState): Promise<string | null>;
}

type Entry = Record<string, unknown>;

function builtin(entry: Entry, name: string): Guardrail | undefined {
  switch (entry.builtin) {
    case "max_cost": {
      const usd = entry.usd as number;
      return {
        name,
        kind: "max_cost",
        check: (s) =>
          Promise.resolve(
            s.stage === "model_response" && s.cost_usd > usd
              ? `The run cost $${s.cost_usd.toFixed(6)}, over the limit of $${usd}`
              : null,
          ),
      };
    }
    case "max_tool_calls": {
      const max = entry.max as number;
      return {
        name,
        kind: "max_tool_calls",
        check: (s) =>
          Promise.resolve(
            s.stage === "tool_call" && s.tool_calls > max
              ? `Tool call ${s.tool_calls} is over the limit of ${max}`
              : null,
          ),
      };
    }
    case "deny_pattern": {
      const re = new RegExp(
        entry.pattern as string,
        ((entry.flags as string | undefined) ?? "").replace(/[gy]/g, ""),
      );
      const on = new Set((entry.on as string[] | undefined) ?? ["input", "output", "tool_args"]);
      return {
        name,
        kind: "deny_pattern",
        check(s) {
          if (s.stage === "input" && on.has("input") && re.test(s.input)) {
            return Promise.resolve(`The input matches the denied pattern /${re.source}/`);
          }
          if (s.stage === "model_response" && on.has("output") && s.text && re.test(s.text)) {
            return Promise.resolve(`The model's output matches the denied pattern /${re.source}/`);
          }
          if (
            s.stage === "tool_call" && on.has("tool_args") && s.tool &&
            re.test(JSON.stringify(s.tool.arguments))
          ) {
            return Promise.resolve(
              `The arguments of ${s.tool.name} match the denied pattern /${re.source}/`,
            );
          }
          return Promise.resolve(null);
        },
      };
    }
    case "allow_tools": {
      const allowed = new Set(entry.tools as string[]);
      return {
        name,
        kind: "allow_tools",
        check: (s) =>
          Promise.resolve(
            s.stage === "tool_call" && s.tool && !allowed.has(s.tool.name)
              ? `The tool ${s.tool.name} is not allowed (allowed: ${
                [...allowed].join(", ") || "none"
              })`
              : null,
          ),
      };
    }
  }
  return undefined;
}

/** Interprets what a code guardrail returned: a reason to trip, or null. */
function codeVerdict(value: unknown): string | null {
  if (value === null || value === undefined || value === false) return null;
  if (value === true) return "The guardrail tripped";
  if (typeof value === "string") return value || "The guardrail tripped";
  if (typeof value === "object") {
    const v = value as { halt?: unknown; reason?: unknown };
    if (v.halt) {
      return typeof v.reason === "string" && v.reason ? v.reason : "The guardrail tripped";
    }
    return null;
  }
  return null;
}

/**
 * Builds the guardrails of a spec (including `limits.max_cost_usd`).
 *
 * @param spec The spec snapshot.
 * @param sandboxes Where code guardrails run.
 * @param defaultTimeoutS Time limit of code guardrails without `timeout_s`.
 * @param costCapUsd A delegated run's cost cap, when it has one.
 * @returns The guardrails in spec order.
 */
export function buildGuardrails(
  spec: HarnessSpec,
  sandboxes: SandboxPool,
  defaultTimeoutS: number,
  costCapUsd?: number,
): Guardrail[] {
  const out: Guardrail[] = [];
  const limit = spec.limits?.max_cost_usd;
  if (limit !== undefined) {
    out.push({ ...builtin({ builtin: "max_cost", usd: limit }, "limits.max_cost_usd")! });
  }
  // A delegated run's cap, set by the run that handed it over.
  if (costCapUsd !== undefined) {
    out.push({ ...builtin({ builtin: "max_cost", usd: costCapUsd }, "delegation.cost_cap")! });
  }
  for (const raw of spec.guardrails ?? []) {
    const entry = raw as Entry;
    const name = entryName(entry)!;
    if (typeof entry.builtin === "string") {
      const g = builtin(entry, name);
      if (g) out.push(g);
      continue;
    }
    const ref = entry.code as string;
    const timeoutMs = ((entry.timeout_s as number | undefined) ?? defaultTimeoutS) * 1000;
    const box = sandboxes.for(entry.permissions as Grant | undefined);
    out.push({
      name,
      kind: "code",
      async check(state) {
        try {
          return codeVerdict(
            (await box.call(ref, structuredClone(state), { guardrail: name }, timeoutMs)).value,
          );
        } catch (err) {
          return `The guardrail could not run, so the run stops: ${(err as Error).message}`;
        }
      },
    });
  }
  return out;
}

/**
 * Runs every guardrail on a state and returns the first trip.
 *
 * @param guardrails The guardrails.
 * @param state What they see.
 * @returns The tripped guardrail and its reason, or undefined.
 */
export async function firstTrip(
  guardrails: readonly Guardrail[],
  state: GuardState,
): Promise<{ guardrail: Guardrail; reason: string } | undefined> {
  for (const g of guardrails) {
    const reason = await g.check(state);
    if (reason) return { guardrail: g, reason };
  }
  return undefined;
}
