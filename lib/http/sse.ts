/**
 * Server-sent events: a Response that writes `event:`/`data:` (and `id:`) frames from an async
 * iterable, with heartbeat comments so proxies keep the connection open. A client that goes away only
 * stops the writing: the producer (a run) is never cancelled by it.
 *
 * @module
 */

/**
 * One SSE frame: its data as JSON, or (`text`) as text sent as it is, such as the `[DONE]` that ends
 * an OpenAI stream. Without `event`, the frame has no `event:` line (a client reads it as `message`,
 * as OpenAI's chat chunks are sent).
 */
export type SseFrame =
  & { event?: string; id?: string | number }
  & ({ data: unknown; text?: undefined } | { text: string; data?: undefined });

/**
 * Formats one frame.
 *
 * @example
 * ```ts
 * formatSse({ event: "run_result", data: { ok: true } }); // 'event: run_result\ndata: {"ok":true}\n\n'
 * formatSse({ text: "[DONE]" }); // "data: [DONE]\n\n"
 * ```
 * @param frame The frame.
 * @returns Its wire text.
 */
export function formatSse(frame: SseFrame): string {
  const id = frame.id === undefined ? "" : `id: ${frame.id}\n`;
  const event = frame.event === undefined ? "" : `event: ${frame.event}\n`;
  const data = frame.text ?? JSON.stringify(frame.data);
  return `${id}${event}data: ${data}\n\n`;
}

/**
 * Streams frames as `text/event-stream`.
 *
 * @example
 * ```ts
 * Deno.serve(() =>
 *   sseResponse((async function* () {
 *     yield { event: "hello", data: {} };
 *   })())
 * );
 * ```
 * @param frames The frames.
 * @param options Heartbeat interval and a callback when the stream ends (finished or disconnected).
 * @returns The response.
 */
export function sseResponse(
  frames: AsyncIterable<SseFrame>,
  options: { heartbeatMs?: number; onClose?: () => void } = {},
): Response {
  const encoder = new TextEncoder();
  let heartbeat: ReturnType<typeof setInterval> | undefined;
  let closed = false;
  const finish = () => {
    if (closed) return;
    closed = true;
    clearInterval(heartbeat);
    options.onClose?.();
  };
  const body = new ReadableStream<Uint8Array>({
    start(controller) {
      heartbeat = setInterval(() => {
        try {
          controller.enqueue(encoder.encode(": keep-alive\n\n"));
        } catch {
          finish();
        }
      }, options.heartbeatMs ?? 15_000);
      (async () => {
        try {
          for await (const frame of frames) {
            if (closed) break;
            controller.enqueue(encoder.encode(formatSse(frame)));
          }
          if (!closed) controller.close();
        } catch (err) {
          if (!closed) controller.error(err);
        } finally {
          finish();
        }
      })();
    },
    cancel() {
      finish();
    },
  });
  return new Response(body, {
    headers: {
      "content-type": "text/event-stream; charset=utf-8",
      "cache-control": "no-store",
      "x-accel-buffering": "no",
    },
  });
}

/**
 * Streams frames made for this one response, giving their producer a signal that aborts when the
 * stream ends (finished, or the client went away), so it stops reading and waiting for nobody.
 *
 * @example
 * ```ts
 * import { sleep } from "../sleep.ts";
 *
 * // A clock: one frame a second until the client goes away.
 * Deno.serve(() =>
 *   sseWhileOpen(async function* (signal) {
 *     for (let id = 1; !signal.aborted; id++) {
 *       yield { id, event: "tick", data: { at: new Date().toISOString() } };
 *       await sleep(1000, signal).catch(() => {});
 *     }
 *   })
 * );
 * ```
 * @param make Makes the frames, given the signal.
 * @returns The response.
 */
export function sseWhileOpen(make: (signal: AbortSignal) => AsyncIterable<SseFrame>): Response {
  const gone = new AbortController();
  return sseResponse(make(gone.signal), { onClose: () => gone.abort() });
}
