/**
 * A started run, as the run service hands it out: its id, its journal as it is written, its result,
 * and its live controls.
 *
 * @module
 */

import type { JournalEvent } from "../journal/event.ts";
import type { RunResult } from "../run_types.ts";
import type { HarnessSpec } from "../harness_spec/schema.ts";
import type { RunControls } from "./control_queue.ts";
import type { EventStream } from "./event_stream.ts";

/** A started run. */
export interface RunHandle {
  run_id: string;
  harness_id: string;
  spec_version: string;
  /** The spec snapshot it runs. */
  spec: HarnessSpec;
  /** The journal file. */
  trace_path: string;
  /** Every journal event as it is written, replayable from the first. */
  events: EventStream<JournalEvent>;
  /** The result; never rejects. */
  result: Promise<RunResult>;
  /** Stops the run now (status `error`, reason `stopped`); a no-op once it has ended. */
  stop(): void;
  /** Its live controls: steering messages, model and mode changes, stop at a turn boundary. */
  controls: RunControls;
}
