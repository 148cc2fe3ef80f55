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

/**
 * Where the path begins in an absolute URL: the first `/` after the scheme's `://` (-1 when there is
 * none).
 *
 * @example
 * ```ts
 * pathStart("http://127.0.0.1:8420/health"); // 21
 * ```
 * @param url The URL, as `Request.url` gives it.
 * @returns The index of the path's slash, or -1.
 */
export function pathStart(url: string): number {
  return url.indexOf("/", url.indexOf("://") + 3);
}

/**
 * The path of a request without its query, as the request log shows it (and the control plane looks
 * its hottest routes up by).
 *
 * @example
 * ```ts
 * pathOf(new Request("http://127.0.0.1:8420/trace/run_01?x=1")); // "/trace/run_01"
 * ```
 * @param request The request.
 * @returns Its path.
 */
export function pathOf(request: Request): string {
  const url = request.url;
  const start = pathStart(url);
  if (start < 0) return "/";
  const query = url.indexOf("?", start);
  return query < 0 ? url.slice(start) : url.slice(start, query);
}

/**
 * Logs one line per request answered by a handler — the one place a server's request lines are
 * written — keeping an answer made synchronously synchronous.
 *
 * @example
 * ```ts
 * const log = requestLog();
 * Deno.serve(withRequestLog(() => new Response("ok"), log.line, () => undefined));
 * ```
 * @param handler The server's handler.
 * @param log Where lines go; null or undefined: the handler as it is.
 * @param keyOf The key a request was verified with, once it has been answered.
 * @returns The logging handler.
 */
export function withRequestLog(
  handler: (request: Request) => Response | Promise<Response>,
  log: ((line: string) => void) | null | undefined,
  keyOf: (request: Request) => string | undefined,
): (request: Request) => Response | Promise<Response> {
  if (!log) return handler;
  return (request) => {
    const t0 = performance.now();
    const write = (response: Response) => {
      log(
        requestLine(
          request.method,
          pathOf(request),
          response.status,
          performance.now() - t0,
          keyOf(request),
        ),
      );
      return response;
    };
    const answer = handler(request);
    return answer instanceof Response ? write(answer) : answer.then(write);
  };
}
