/**
 * `proposeImprovement`: asks the evolver model (`evolution.model`, else the harness's own model) for a
 * structured improvement based on evidence from the hive, gates every change, and queues the proposal.
 * Proposing never applies anything.
 *
 * @module
 */

import { deadline } from "../deadline.ts";
import * as z from "zod";
import { FrameworkError } from "../errors.ts";
import { openHive } from "../hive/open.ts";
import { ulid } from "../ids.ts";
import { costOf, priceOf } from "../models/pricing.ts";
import { createProvider, type ProviderContext } from "../models/registry.ts";
import { withRetries } from "../models/retry.ts";
import { type ModelProvider, ProviderError } from "../models/types.ts";
import { protectedTraceDirs } from "../journal/trace_dir.ts";
import { type EditPolicy, frozenRoots } from "../harness_spec/frozen.ts";
import { loadSpec } from "../harness_spec/load.ts";
import type { ModelSpec } from "../harness_spec/schema.ts";
import { resolvePath } from "../harness_spec/dotted_path.ts";
import { canonicalJson, sha256Hex } from "../hash.ts";
import { gatherEvidence } from "./evidence.ts";
import { gateCodeChange, gateYamlChange } from "./evolution_gate.ts";
import {
  type CodeChange,
  insertProposal,
  type Proposal,
  type YamlChange,
} from "../hive/proposals.ts";
import { unifiedDiff } from "./unified_diff.ts";

/** Options of {@link proposeImprovement}. */
export interface ProposeOptions {
  trigger: Proposal["trigger"];
  /** What to improve, in the requester's words. */
  objective?: string;
  /** Runs to learn from (default: the recent failures). */
  runIds?: string[];
  /** `proposal` (CLI, workbench, auto) or `remote` (the control plane). */
  policy: Extract<EditPolicy, "proposal" | "remote">;
  /** Replaces provider creation (tests, embedders). */
  createProvider?: (model: ModelSpec, ctx: ProviderContext) => ModelProvider;
}

/** The answer the evolver must give. */
const answerSchema = z.object({
  rationale: z.string().min(1),
  yaml_changes: z.array(z.object({
    path: z.string().min(1),
    op: z.enum(["set", "remove"]),
    value: z.unknown().optional(),
  })).default([]),
  code_changes: z.array(z.object({ path: z.string().min(1), content: z.string() })).default([]),
});

const SYSTEM =
  `You improve an LLM agent harness (a harness.yaml plus optional TypeScript code) from the evidence of
its own runs. Answer with ONE JSON object and nothing else:
{"rationale": "why these changes help, citing the evidence",
 "yaml_changes": [{"path": "dotted.path", "op": "set" | "remove", "value": <JSON, for set>}],
 "code_changes": [{"path": "relative/path/in/harness.ts", "content": "the whole new file"}]}
Dotted paths address harness.yaml fields (limits.max_turns, instructions, skills.<name>.instructions,
tools.<name>.description). Frozen fields cannot be changed and will be blocked. Keep changes small and
aimed at the failures and objectives.`;

/** The evolver's answer, as parsed. */
type Answer = z.infer<typeof answerSchema>;

/** Parses the evolver's text as the answer JSON (a single Markdown fence is allowed). */
export function parseEvolverAnswer(text: string): Answer {
  const trimmed = text.trim();
  const fenced = /^```(?:json)?\s*\n([\s\S]*?)\n```$/i.exec(trimmed);
  let value: unknown;
  try {
    value = JSON.parse(fenced ? fenced[1]! : trimmed);
  } catch (err) {
    throw new FrameworkError(
      "internal",
      `The evolver model did not answer with JSON: ${(err as Error).message}`,
    );
  }
  const parsed = answerSchema.safeParse(value);
  if (!parsed.success) {
    const first = parsed.error.issues[0]!;
    throw new FrameworkError(
      "internal",
      `The evolver model's answer has the wrong shape: ${
        first.path.join(".") || "(root)"
      }: ${first.message}`,
    );
  }
  return parsed.data;
}

/** Why a change that changes nothing is skipped when a proposal is drafted. */
const NOOP_REASON = "already in place: it would change nothing";

/**
 * Whether a YAML change would leave the spec as it is: a `set` to the value already there, or a
 * `remove` of something not set.
 *
 * @param spec The parsed spec value.
 * @param change The change (already through the gate).
 * @returns True for a no-op.
 */
export function yamlChangeIsNoop(spec: unknown, change: Pick<YamlChange, "path" | "op" | "value">) {
  const resolved = resolvePath(spec, change.path);
  if (change.op === "remove") return !resolved.exists;
  return resolved.exists && canonicalJson(resolved.value) === canonicalJson(change.value ?? null);
}

/** The value a dotted path holds in the spec before a change (null when it is not set). */
function valueBefore(spec: unknown, path: string): unknown {
  const resolved = resolvePath(spec, path);
  return resolved.exists ? resolved.value ?? null : null;
}

/**
 * Drafts and queues a proposal. Changes to frozen roots, unknown paths, and files outside the harness,
 * in sensitive paths or onto `harness.yaml` are recorded as `blocked`.
 *
 * @example
 * ```ts
 * const p = await proposeImprovement("./harnesses/hello", { trigger: "cli", policy: "proposal" });
 * p.status; // "queued"
 * ```
 * @param harnessDir The harness folder.
 * @param options Trigger, objective, runs, policy.
 * @returns The queued proposal.
 */
export async function proposeImprovement(
  harnessDir: string,
  options: ProposeOptions,
): Promise<Proposal> {
  const loaded = await loadSpec(harnessDir);
  const spec = loaded.spec;
  const db = openHive();
  const evidence = await gatherEvidence(db, loaded, options.runIds);
  const objectives = [
    ...(spec.evolution?.objectives ?? []),
    ...(options.objective ? [options.objective] : []),
  ];
  const model = spec.evolution?.model ?? spec.model;
  const request = {
    harness_yaml: loaded.text,
    objectives,
    frozen_fields: frozenRoots(options.policy),
    evidence,
  };
  const make = options.createProvider ?? createProvider;
  const input = options.objective ?? "Improve the harness from its failures.";
  const provider = withRetries(make(model, { harnessDir: loaded.dir, input }), {
    maxRetries: model.max_retries ?? 3,
  });
  let response;
  const limit = deadline((model.timeout_s ?? 120) * 1000);
  try {
    response = await provider.generate({
      system: SYSTEM,
      messages: [{ role: "user", content: JSON.stringify(request, null, 2) }],
      tools: [],
      signal: limit.signal,
    });
  } catch (err) {
    if (err instanceof ProviderError) {
      throw new FrameworkError("internal", `The evolver model failed: ${err.message}`);
    }
    throw err;
  } finally {
    limit.clear();
  }
  const answer = parseEvolverAnswer(response.text);

  const traceDirs = protectedTraceDirs(loaded.dir, spec.logging?.trace_dir);
  const specValue = JSON.parse(JSON.stringify(spec));
  const yaml_changes = draftYamlChanges(specValue, answer.yaml_changes, options.policy);
  const code_changes = await draftCodeChanges(loaded.dir, answer.code_changes, traceDirs);
  // A proposal that would change nothing is not queued (blocked changes are: a person sees them).
  const all = [...yaml_changes, ...code_changes];
  if (all.every((c) => c.noop)) {
    throw new FrameworkError(
      "conflict",
      all.length === 0
        ? "The evolver proposed no change; nothing was queued"
        : `Nothing was queued: every change the evolver proposed is already in place (${all.length})`,
      { noop_changes: all.length },
    );
  }
  const now = new Date().toISOString();
  const proposal: Proposal = {
    id: `prop_${ulid()}`,
    harness_id: spec.id,
    status: "queued",
    trigger: options.trigger,
    created_at: now,
    updated_at: now,
    rationale: answer.rationale,
    objective: options.objective ?? null,
    evidence,
    yaml_changes,
    code_changes,
    spec_version: loaded.version,
    evolver: {
      provider: provider.provider,
      model: provider.model,
      cost_usd: costOf(response.usage, priceOf(model)),
    },
    decided_at: null,
    reason: null,
  };
  insertProposal(db, proposal, loaded.dir);
  return proposal;
}

/**
 * The evolver's YAML changes as drafted: each through the gate (blocked with its reason), with the
 * value it replaces, and skipped when it would change nothing.
 */
function draftYamlChanges(
  specValue: unknown,
  changes: Answer["yaml_changes"],
  policy: ProposeOptions["policy"],
): YamlChange[] {
  return changes.map((c) => {
    const verdict = gateYamlChange(specValue, c, policy);
    const change: YamlChange = {
      path: c.path,
      op: c.op,
      ...(c.op === "set" ? { value: c.value ?? null } : {}),
      status: verdict.ok ? "pending" : "blocked",
      ...(verdict.ok ? { old: valueBefore(specValue, c.path) } : { reason: verdict.reason }),
    };
    if (verdict.ok && yamlChangeIsNoop(specValue, change)) {
      Object.assign(change, { status: "skipped", noop: true, reason: NOOP_REASON });
    }
    return change;
  });
}

/**
 * The evolver's code changes as drafted (`c1`, `c2`, …): each through the gate (blocked with its
 * reason), with its diff against the file as it is and that file's hash, and skipped when the file
 * already has the content.
 */
async function draftCodeChanges(
  harnessDir: string,
  changes: Answer["code_changes"],
  traceDirs: readonly string[],
): Promise<CodeChange[]> {
  const code_changes: CodeChange[] = [];
  for (const [i, c] of changes.entries()) {
    const verdict = await gateCodeChange(harnessDir, c.path, traceDirs);
    let before: string | null = null;
    if (verdict.ok) {
      try {
        before = await Deno.readTextFile(verdict.absolute!);
      } catch {
        before = null;
      }
    }
    const noop = verdict.ok && before === c.content;
    code_changes.push({
      id: `c${i + 1}`,
      path: c.path,
      // A blocked path is never read: its diff shows only the proposed content.
      diff: unifiedDiff(c.path, before, c.content),
      status: noop ? "skipped" : verdict.ok ? "pending" : "blocked",
      ...(noop
        ? { noop: true, reason: NOOP_REASON }
        : verdict.ok
        ? {}
        : { reason: verdict.reason }),
      content: c.content,
      base_sha256: before === null ? null : sha256Hex(before),
    });
  }
  return code_changes;
}
