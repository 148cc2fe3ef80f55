/**
 * A replayable event stream: every consumer iterates from the first event, however late it starts,
 * and the iteration ends when the stream is closed. Producers never wait for consumers, so a slow or
 * vanished consumer cannot hold a run back.
 *
 * @module
 */

/** A stream of events. */
export interface EventStream<T> extends AsyncIterable<T> {
  /** Adds an event. */
  push(event: T): void;
  /** Ends the stream. */
  close(): void;
  /** Every event so far. */
  snapshot(): readonly T[];
  /** Whether the stream has ended. */
  readonly closed: boolean;
}

/**
 * Creates a stream.
 *
 * @example
 * ```ts
 * const s = createEventStream<number>();
 * s.push(1); s.close();
 * for await (const n of s) console.log(n); // 1
 * ```
 * @returns The stream.
 */
export function createEventStream<T>(): EventStream<T> {
  const events: T[] = [];
  let closed = false;
  let waiters: (() => void)[] = [];
  const wake = () => {
    const w = waiters;
    waiters = [];
    for (const f of w) f();
  };
  return {
    push(event) {
      if (closed) return;
      events.push(event);
      wake();
    },
    close() {
      closed = true;
      wake();
    },
    snapshot: () => events,
    get closed() {
      return closed;
    },
    [Symbol.asyncIterator](): AsyncIterator<T> {
      let i = 0;
      return {
        async next(): Promise<IteratorResult<T>> {
          while (i >= events.length && !closed) await new Promise<void>((r) => waiters.push(r));
          if (i < events.length) return { value: events[i++]!, done: false };
          return { value: undefined, done: true };
        },
        return(): Promise<IteratorResult<T>> {
          i = Infinity;
          return Promise.resolve({ value: undefined, done: true });
        },
      };
    },
  };
}
