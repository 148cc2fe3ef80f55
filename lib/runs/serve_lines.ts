/**
 * `framework serve`: one JSON run request per input line, answered with the NDJSON frames of its run,
 * one run after another. A bad line is answered with an `error` frame and serving goes on; so is a
 * line longer than a request body may be over HTTP (1 MiB), which is skipped unread.
 *
 * @module
 */

import { readRequest, RUN_REQUEST } from "../requests.ts";
import { errorEnvelope } from "../envelope.ts";
import { asFrameworkError, badInput, type FrameworkError } from "../errors.ts";
import { DEFAULT_MAX_BODY_BYTES } from "../http/body.ts";
import { readLines } from "../lines.ts";
import type { TrustedFolder } from "../trust/trust_gate.ts";
import { ndjsonLine } from "./frames.ts";
import type { RunService } from "./service.ts";

/**
 * Serves run requests from a stream of lines until it ends.
 *
 * @example
 * ```ts
 * import { trustGate } from "../trust/trust_gate.ts";
 * import { createRunService } from "./service.ts";
 *
 * const trusted = await trustGate(await Deno.realPath("./harnesses/hello"), { approve: true });
 * await serveLines(Deno.stdin.readable, (line) => console.log(line), createRunService(), trusted);
 * ```
 * @param input The request lines.
 * @param write Writes one output line.
 * @param runs The run service.
 * @param target The harness, as the trust gate's proof for it.
 */
export async function serveLines(
  input: ReadableStream<Uint8Array>,
  write: (line: string) => void,
  runs: RunService,
  target: TrustedFolder,
): Promise<void> {
  const error = (e: FrameworkError) =>
    write(JSON.stringify({ frame: "error", ...errorEnvelope(e) }));
  const lines = readLines(input, {
    maxLineBytes: DEFAULT_MAX_BODY_BYTES,
    onTooLong: (err) =>
      error(badInput(`A request line is longer than ${err.limitText}: send at most that per line`)),
  });
  for await (const line of lines) {
    if (!line.trim()) continue;
    try {
      let request: unknown;
      try {
        request = JSON.parse(line);
      } catch {
        throw badInput('Each line must be a JSON object such as {"input": "hello"}');
      }
      if (!request || typeof request !== "object" || Array.isArray(request)) {
        throw badInput('Each line must be a JSON object such as {"input": "hello"}');
      }
      const run = await runs.submit(target, readRequest(RUN_REQUEST, request));
      for await (const frame of run.frames()) write(ndjsonLine(frame));
    } catch (err) {
      const e = asFrameworkError(err);
      if (e.kind === "internal") console.error(err);
      error(e);
    }
  }
}
