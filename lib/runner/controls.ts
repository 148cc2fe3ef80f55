/**
 * The control queue of a live run: controls (stop, steer, model change, playbook change, fork) wait
 * here and the runner drains them only at a turn boundary, when no model call or tool is in flight.
 *
 * @module
 */

/** One queued control. */
export interface Control {
  /** Control kind, e.g. `stop`. */
  kind: string;
  /** Kind-specific fields. */
  [key: string]: unknown;
}

/** A run's control queue. */
export interface ControlQueue {
  /** Queues a control; it takes effect at the next turn boundary. */
  push(control: Control): void;
  /** Takes every queued control (called by the runner at a turn boundary). */
  drain(): Control[];
  /** Queued controls, not yet applied. */
  pending(): readonly Control[];
}

/**
 * Creates an empty control queue.
 *
 * @returns The queue.
 */
export function createControlQueue(): ControlQueue {
  let queue: Control[] = [];
  return {
    push(control) {
      queue.push(control);
    },
    drain() {
      const out = queue;
      queue = [];
      return out;
    },
    pending: () => queue,
  };
}
