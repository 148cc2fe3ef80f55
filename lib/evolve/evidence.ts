/**
 * Evidence for a proposal, from the hive: the harness's recent failures grouped by failure signature,
 * its statuses, costs and turns, and (only with `evolution.trace_excerpts: true`) short redacted
 * excerpts of failed runs' journals.
 *
 * @module
 */

import { badInput } from "../errors.ts";
import type { Hive } from "../hive/open.ts";
import { type FailedRun, getRun, recentFailedRuns } from "../hive/runs.ts";
import { harnessStats } from "../hive/stats.ts";
import { makeRedactor } from "../journal/redact.ts";
import { parseJournal } from "../journal/verify.ts";
import { harnessRef, type LoadedSpec } from "../harness_spec/load.ts";
import type { Proposal } from "../hive/proposals.ts";

const MAX_FAILED_RUNS = 50;
const EXCERPT_RUNS = 3;
const EXCERPT_EVENTS = 12;
const EXCERPT_PAYLOAD_CHARS = 1500;

function shorten(payload: unknown): unknown {
  const text = JSON.stringify(payload);
  return text.length > EXCERPT_PAYLOAD_CHARS ? `${text.slice(0, EXCERPT_PAYLOAD_CHARS)}…` : payload;
}

/**
 * Gathers the evidence of a harness, or of chosen runs.
 *
 * @param db The hive.
 * @param loaded The harness's spec and folder.
 * @param runIds Specific runs (each must be this harness's), or none for recent failures.
 * @returns The evidence.
 */
export async function gatherEvidence(
  db: Hive,
  loaded: LoadedSpec,
  runIds: string[] = [],
): Promise<Proposal["evidence"]> {
  const spec = loaded.spec;
  const ref = harnessRef(loaded);
  const stats = harnessStats(db, ref);
  let failed: FailedRun[];
  if (runIds.length) {
    failed = runIds.map((id) => {
      const row = getRun(db, ref, id);
      if (!row) {
        throw badInput(`Unknown run ${JSON.stringify(id)} for harness ${JSON.stringify(spec.id)}`, {
          run_id: id,
        });
      }
      return row;
    });
  } else {
    failed = recentFailedRuns(db, ref, MAX_FAILED_RUNS);
  }
  const groups = new Map<string, string[]>();
  for (const r of failed) {
    if (!r.failure_signature) continue;
    const ids = groups.get(r.failure_signature) ?? [];
    ids.push(r.run_id);
    groups.set(r.failure_signature, ids);
  }
  const evidence: Proposal["evidence"] = {
    run_ids: failed.map((r) => r.run_id),
    failure_signatures: [...groups.entries()]
      .map(([signature, ids]) => ({ signature, count: ids.length, run_ids: ids.slice(0, 5) }))
      .sort((a, b) => b.count - a.count),
    runs: {
      total: stats.runs.total,
      by_status: stats.runs.by_status,
      avg_cost_usd: stats.runs.total ? stats.runs.cost_usd / stats.runs.total : null,
      avg_turns: stats.runs.avg_turns,
    },
  };
  if (spec.evolution?.trace_excerpts) {
    const redact = makeRedactor(spec.logging?.redact);
    evidence.trace_excerpts = [];
    for (const r of failed.slice(0, EXCERPT_RUNS)) {
      try {
        const events = parseJournal(await Deno.readFile(r.trace_path)).slice(-EXCERPT_EVENTS);
        evidence.trace_excerpts.push({
          run_id: r.run_id,
          events: events.map((e) => ({
            seq: e.seq,
            type: e.type,
            payload: shorten(redact(e.payload)),
          })),
        });
      } catch {
        // a missing journal gives no excerpt
      }
    }
  }
  return evidence;
}
