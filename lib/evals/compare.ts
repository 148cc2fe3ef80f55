/**
 * Versions of a harness side by side (docs/evaluations.md, Versions): the YAML diff, the
 * live-run figures of each version and their deltas, the newest evaluation of each on the same set,
 * case by case (fixed, broken, still failing, still passing), and the failure signatures that
 * appeared, disappeared or stayed.
 *
 * @module
 */

import { notFound } from "../errors.ts";
import { unifiedDiff } from "../evolve/unified_diff.ts";
import { type EvalResult, evaluatedSets, latestEval } from "../hive/evals.ts";
import type { HarnessRef } from "../hive/harnesses.ts";
import type { Hive } from "../hive/open.ts";
import {
  runFiguresByVersion,
  type VersionMetrics,
  versionMetrics,
  versionSignatures,
} from "../hive/runs.ts";
import { findSpecVersion, listSpecVersions } from "../hive/spec_versions.ts";

/** One entry of a harness's version timeline. */
export interface VersionEntry {
  seq: number;
  version: string;
  /** Its harness.yaml, as written. */
  yaml: string;
  source: string;
  created_at: string;
  /** Its finished live runs: the comparison counts them alike ({@link runFiguresByVersion}). */
  runs: number;
  /** Its finished evaluation runs outside the live figures, in the folder or on a copy. */
  eval_runs: number;
  /** Its runs still going. */
  running: number;
  /** Its live runs' success rate and mean cost per run (null without any). */
  success_rate: number | null;
  cost_usd: number | null;
  /** Whether it is what `harness.yaml` holds now. */
  current: boolean;
}

/**
 * A harness's versions, newest first, with their run counts.
 *
 * @param db The hive.
 * @param harness The harness.
 * @param current The version on disk now, when known.
 * @param limit At most this many.
 * @returns The timeline.
 */
export function versionTimeline(
  db: Hive,
  harness: HarnessRef,
  current?: string,
  limit = 200,
): VersionEntry[] {
  const figures = runFiguresByVersion(db, harness);
  return listSpecVersions(db, harness, limit).map((v) => ({
    seq: v.seq,
    version: v.version,
    yaml: v.yaml,
    source: v.source,
    created_at: v.created_at,
    runs: figures.get(v.version)?.runs ?? 0,
    eval_runs: figures.get(v.version)?.eval_runs ?? 0,
    running: figures.get(v.version)?.running ?? 0,
    success_rate: figures.get(v.version)?.success_rate ?? null,
    cost_usd: figures.get(v.version)?.cost_usd ?? null,
    current: v.version === current,
  }));
}

/** How a case changed from version a to version b. */
export type CaseChange =
  | "fixed"
  | "broken"
  | "still_failing"
  | "still_passing"
  | "added"
  | "removed";

/** The comparison of two versions. */
export interface Comparison {
  a: { version: string; seq: number; source: string; created_at: string };
  b: { version: string; seq: number; source: string; created_at: string };
  yaml_diff: string;
  metrics: {
    a: VersionMetrics;
    b: VersionMetrics;
    delta: Record<keyof VersionMetrics, number | null>;
  };
  evals: {
    set: string | null;
    a: EvalResult | null;
    b: EvalResult | null;
    cases: { case_id: string; a: boolean | null; b: boolean | null; change: CaseChange }[];
  };
  signatures: {
    appeared: SignatureChange[];
    disappeared: SignatureChange[];
    kept: SignatureChange[];
  };
}

/** A failure signature in one or both versions, with an example run of each. */
export interface SignatureChange {
  signature: string;
  count_a: number;
  count_b: number;
  example_run_a: string | null;
  example_run_b: string | null;
}

/**
 * Compares two versions of a harness.
 *
 * @example
 * ```ts
 * import { openHive } from "../hive/open.ts";
 *
 * const ref = { id: "hello", dir: await Deno.realPath("./harnesses/hello") };
 * const c = compareVersions(openHive(), ref, "3f2a9c", "8be01d");
 * c.evals.cases.filter((x) => x.change === "broken");
 * ```
 * @param db The hive.
 * @param harness The harness.
 * @param a The earlier version (hash or unique prefix).
 * @param b The later version.
 * @param set The eval set to compare on (default: the newest set both were evaluated on).
 * @returns The comparison.
 * @throws `not_found` for an unknown version.
 */
export function compareVersions(
  db: Hive,
  harness: HarnessRef,
  a: string,
  b: string,
  set?: string,
): Comparison {
  const va = findSpecVersion(db, harness, a);
  const vb = findSpecVersion(db, harness, b);
  for (const [given, found] of [[a, va], [b, vb]] as const) {
    if (!found) {
      throw notFound(
        `No version ${
          JSON.stringify(given)
        } of ${harness.id} (a hash, or a unique prefix of 6 or more hex digits)`,
        { version: given },
      );
    }
  }
  // The counts come from the timeline's function: both views count the same runs.
  const figures = runFiguresByVersion(db, harness, [va!.version, vb!.version]);
  const ma = versionMetrics(db, harness, va!.version, figures.get(va!.version));
  const mb = versionMetrics(db, harness, vb!.version, figures.get(vb!.version));
  const delta = Object.fromEntries(
    (Object.keys(ma) as (keyof VersionMetrics)[]).map((k) => {
      const x = ma[k];
      const y = mb[k];
      return [k, x === null || y === null ? null : Math.round((y - x) * 1e9) / 1e9];
    }),
  ) as Record<keyof VersionMetrics, number | null>;

  const setsA = evaluatedSets(db, harness, va!.version);
  const setsB = evaluatedSets(db, harness, vb!.version);
  const chosen = set ?? setsB.find((s) => setsA.includes(s)) ?? setsB[0] ?? setsA[0] ?? null;
  const ea = chosen ? latestEval(db, harness, va!.version, chosen) ?? null : null;
  const eb = chosen ? latestEval(db, harness, vb!.version, chosen) ?? null : null;

  const version = (v: NonNullable<typeof va>) => ({
    version: v.version,
    seq: v.seq,
    source: v.source,
    created_at: v.created_at,
  });
  return {
    a: version(va!),
    b: version(vb!),
    yaml_diff: unifiedDiff("harness.yaml", va!.yaml, vb!.yaml),
    metrics: { a: ma, b: mb, delta },
    evals: { set: chosen, a: ea, b: eb, cases: caseChanges(ea, eb) },
    signatures: signatureChanges(
      signaturesOf(db, harness, va!.version, ea),
      signaturesOf(db, harness, vb!.version, eb),
    ),
  };
}

/**
 * How each case changed from one evaluation to another.
 *
 * @param a The earlier evaluation.
 * @param b The later one.
 * @returns One entry per case of either.
 */
export function caseChanges(
  a: EvalResult | null,
  b: EvalResult | null,
): Comparison["evals"]["cases"] {
  const inA = new Map((a?.cases ?? []).map((c) => [c.case_id, c.passed]));
  const inB = new Map((b?.cases ?? []).map((c) => [c.case_id, c.passed]));
  const ids = [...new Set([...inA.keys(), ...inB.keys()])];
  return ids.map((case_id) => {
    const pa = inA.get(case_id) ?? null;
    const pb = inB.get(case_id) ?? null;
    const change: CaseChange = pa === null
      ? "added"
      : pb === null
      ? "removed"
      : pa && pb
      ? "still_passing"
      : pa
      ? "broken"
      : pb
      ? "fixed"
      : "still_failing";
    return { case_id, a: pa, b: pb, change };
  });
}

/** A version's failure signatures: its runs' (live and eval), and its newest evaluation's. */
function signaturesOf(
  db: Hive,
  harness: HarnessRef,
  version: string,
  evaluation: EvalResult | null,
): Map<string, { count: number; example: string }> {
  const out = new Map<string, { count: number; example: string }>();
  for (const s of versionSignatures(db, harness, version)) {
    out.set(s.signature, { count: s.count, example: s.example_run_id });
  }
  // Runs measured on a copy are not the harness's own: their signatures come from the result.
  if (evaluation?.measured_on === "copy") {
    for (const c of evaluation.cases) {
      if (!c.failure_signature || !c.run_id) continue;
      const seen = out.get(c.failure_signature);
      out.set(c.failure_signature, {
        count: (seen?.count ?? 0) + 1,
        example: seen?.example ?? c.run_id,
      });
    }
  }
  return out;
}

function signatureChanges(
  a: Map<string, { count: number; example: string }>,
  b: Map<string, { count: number; example: string }>,
): Comparison["signatures"] {
  const out: Comparison["signatures"] = { appeared: [], disappeared: [], kept: [] };
  for (const signature of [...new Set([...a.keys(), ...b.keys()])].sort()) {
    const x = a.get(signature);
    const y = b.get(signature);
    const entry: SignatureChange = {
      signature,
      count_a: x?.count ?? 0,
      count_b: y?.count ?? 0,
      example_run_a: x?.example ?? null,
      example_run_b: y?.example ?? null,
    };
    (x && y ? out.kept : x ? out.disappeared : out.appeared).push(entry);
  }
  return out;
}
