/**
 * What the page shows of runs that are still going, kept current from the page's one stream of live
 * runs (`ui/run_stream.ts`): one run's events as they are written (Trace), the cost and turns of the
 * live runs of a list, read again when one ends (Runs, the run chooser), and a clock
 * that ticks while something live is shown (durations).
 *
 * @module
 */

import { useEffect, useRef, useState } from "preact/hooks";
import { type RunTally, tallyEvent } from "../lib/run_tally.ts";
import { useMounted } from "./components/time.tsx";
import { paths } from "./paths.ts";
import type { LiveFrame } from "./run_stream.ts";
import { useStore } from "./store.ts";

/**
 * Follows one run while `runId` is set: `onFrame` gets its events after seq `after` (read when the
 * following starts), then its end.
 *
 * @param runId The run, or null for none.
 * @param after The last seq the component has.
 * @param onFrame Called with each frame (the latest function given is called).
 */
export function useRunFrames(
  runId: string | null,
  after: number,
  onFrame: (frame: LiveFrame) => void,
): void {
  const { live } = useStore();
  const handler = useRef(onFrame);
  handler.current = onFrame;
  useEffect(() => {
    if (!runId) return;
    return live.follow(runId, after, (f) => handler.current(f));
  }, [runId]);
}

const NOTHING: RunTally = { cost_usd: 0, turns: 0 };

/**
 * Follows the runs of a list that are still going: their cost and turns so far, from their events;
 * when one ends, the harness's runs (and its figures, and the threads shown) are read again, once
 * for runs that end together.
 *
 * @param harnessId The harness the list is of.
 * @param rows The rows of the list (those with status `running` are followed).
 * @returns Cost and turns by run id (for the runs whose events have come).
 */
export function useLiveRows(
  harnessId: string,
  rows: readonly { run_id: string; status: string }[],
): ReadonlyMap<string, RunTally> {
  const { live, cache } = useStore();
  const runIds = rows.filter((r) => r.status === "running").map((r) => r.run_id);
  const [tallies, setTallies] = useState<ReadonlyMap<string, RunTally>>(new Map());
  const ended = useRef(() => {});
  ended.current = () =>
    cache.refresh(paths.runsOf(harnessId), paths.harness(harnessId), paths.allThreads());
  const follows = useRef(new Map<string, () => void>());
  const timer = useRef<ReturnType<typeof setTimeout>>();
  const forget = (id: string) => {
    follows.current.get(id)?.();
    follows.current.delete(id);
    setTallies((m) => {
      if (!m.has(id)) return m;
      const next = new Map(m);
      next.delete(id);
      return next;
    });
  };
  // Runs that stay in the list are followed on (not from their start again). A run that has ended
  // is let go; should the list read again still show it running (its end not yet in the hive), it
  // is followed again from its start.
  useEffect(() => {
    const want = new Set(runIds);
    for (const id of [...follows.current.keys()]) if (!want.has(id)) forget(id);
    for (const id of want) {
      if (follows.current.has(id)) continue;
      forget(id); // its tally, if it is followed again
      follows.current.set(
        id,
        live.follow(id, 0, (f) => {
          if (f.kind === "trace") {
            setTallies((m) => new Map(m).set(id, tallyEvent(m.get(id) ?? NOTHING, f.event)));
            return;
          }
          follows.current.get(id)?.();
          follows.current.delete(id);
          clearTimeout(timer.current);
          timer.current = setTimeout(() => ended.current(), 50);
        }),
      );
    }
  }, [rows]);
  useEffect(() => () => {
    clearTimeout(timer.current);
    for (const undo of follows.current.values()) undo();
    follows.current.clear();
  }, []);
  return tallies;
}

/**
 * The time now, ticking every second while `active` (the server's render and the first one in the
 * browser give null, so hydration matches).
 *
 * @param active Whether something live is shown.
 * @returns Milliseconds since the epoch, or null before the page runs.
 */
export function useNow(active: boolean): number | null {
  const mounted = useMounted();
  const [now, setNow] = useState(() => Date.now());
  useEffect(() => {
    if (!active) return;
    setNow(Date.now());
    const t = setInterval(() => setNow(Date.now()), 1000);
    return () => clearInterval(t);
  }, [active]);
  return mounted ? now : null;
}

/**
 * How long a run has been going, by the ticking clock (never below zero, whatever the clocks of the
 * browser and the server say).
 *
 * @param startedAt The run's start (ISO).
 * @param now The time now, or null before the page runs.
 * @returns Milliseconds, or null.
 */
export function elapsedSince(startedAt: string, now: number | null): number | null {
  return now === null ? null : Math.max(0, now - Date.parse(startedAt));
}
