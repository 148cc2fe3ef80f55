/**
 * A request log that never blocks the event loop: lines are queued and written to stderr by one
 * asynchronous write at a time, a few milliseconds after the first of them (a busy server writes
 * hundreds of lines per call, not one per request); `flush` writes at once. When the reader
 * stops reading and the queue passes its bound, new lines are dropped and counted, and the count is
 * written once the stream moves again; the server keeps answering either way.
 *
 * @module
 */

/** A non-blocking line log. */
export interface RequestLog {
  /** Queues one line (without its newline). */
  line(text: string): void;
  /** Resolves when every queued line has been written. */
  flush(): Promise<void>;
}

/** How long a line waits for others before they are written together. */
const BATCH_MS = 5;

/** Lines held at most while the writer waits on a slow reader. */
const MAX_QUEUED = 10_000;

/**
 * Makes a request log over a writer (default: stderr).
 *
 * @example
 * ```ts
 * const log = requestLog();
 * log.line("2026-11-23T08:00:00.000Z GET /health 200 0ms key=-");
 * await log.flush();
 * ```
 * @param writer Where the bytes go.
 * @returns The log.
 */
export function requestLog(
  writer: { write(bytes: Uint8Array): Promise<number> } = Deno.stderr,
): RequestLog {
  const encoder = new TextEncoder();
  let queue: string[] = [];
  let dropped = 0;
  let writing: Promise<void> | undefined;

  const drain = async () => {
    while (queue.length || dropped) {
      if (dropped) {
        queue.push(`(${dropped} request log lines dropped: stderr was not being read)`);
        dropped = 0;
      }
      const bytes = encoder.encode(queue.join("\n") + "\n");
      queue = [];
      let off = 0;
      try {
        while (off < bytes.length) off += await writer.write(bytes.subarray(off));
      } catch {
        // stderr is gone (closed pipe): logging stops, serving does not.
        queue = [];
        return;
      }
    }
  };

  // Lines wait a few milliseconds for company, so a busy server writes hundreds per call.
  let timer: ReturnType<typeof setTimeout> | undefined;
  const start = () => {
    if (timer !== undefined) clearTimeout(timer);
    timer = undefined;
    writing ??= drain().finally(() => writing = undefined);
  };

  return {
    line(text) {
      if (queue.length >= MAX_QUEUED) {
        dropped++;
        return;
      }
      queue.push(text);
      if (!writing && timer === undefined) {
        timer = setTimeout(start, BATCH_MS);
        Deno.unrefTimer(timer as unknown as number); // a pending line never keeps the process alive
      }
    },
    async flush() {
      if (timer !== undefined) start();
      while (writing) await writing;
    },
  };
}

/**
 * One request log line: time, method, path, status, duration and the verified key (or `-`).
 *
 * @example
 * ```ts
 * requestLine("GET", "/stats", 200, 1.2, "k_abc"); // "2026-… GET /stats 200 1ms key=k_abc"
 * ```
 * @param method The request method.
 * @param path The request path.
 * @param status The response status.
 * @param ms How long the answer took.
 * @param keyId The verified key id, when there is one.
 * @returns The line.
 */
export function requestLine(
  method: string,
  path: string,
  status: number,
  ms: number,
  keyId: string | undefined,
): string {
  return `${isoNow()} ${method} ${path} ${status} ${Math.round(ms)}ms key=${keyId ?? "-"}`;
}

let lastMs = -1;
let lastIso = "";

/** The current time in ISO form, formatted once per millisecond (a busy server logs many lines in one). */
function isoNow(): string {
  const now = Date.now();
  if (now !== lastMs) {
    lastMs = now;
    lastIso = new Date(now).toISOString();
  }
  return lastIso;
}
