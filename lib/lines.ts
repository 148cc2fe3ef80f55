/**
 * Reading a byte stream line by line (NDJSON requests on stdin, the sandbox's protocol): the one line
 * reader of the framework.
 *
 * @module
 */

/** The longest line {@link readLines} accepts unless told otherwise: 1 MiB. */
export const DEFAULT_MAX_LINE_BYTES = 1024 * 1024;

/** A line went past the cap of {@link readLines}. */
export class LineTooLongError extends Error {
  /** The cap for people to read (`8 MiB`, `4096 bytes`). */
  readonly limitText: string;
  /**
   * @param limit The cap, in bytes.
   */
  constructor(readonly limit: number) {
    const limitText = byteSize(limit);
    super(`A line is longer than ${limitText}, the limit of one line here`);
    this.name = "LineTooLongError";
    this.limitText = limitText;
  }
}

/** Options of {@link readLines}. */
export interface ReadLinesOptions {
  /** The longest line, in bytes without its `\n` or `\r\n` ({@link DEFAULT_MAX_LINE_BYTES}). */
  maxLineBytes?: number;
  /**
   * Called for a longer line, which is then skipped up to its end while reading goes on. Without
   * it, the reading throws {@link LineTooLongError} (and cancels the stream) as soon as the line
   * passes the cap, without waiting for its end.
   */
  onTooLong?: (error: LineTooLongError) => void;
}

/**
 * The lines of a stream, without their `\n` (or `\r\n`); the last one is yielded even without a
 * newline. A line is capped ({@link ReadLinesOptions}), and every byte is looked at once: a long
 * line costs time and memory in proportion to its length, never more, so a peer that writes
 * megabytes without a newline cannot stall the process.
 *
 * @example
 * ```ts
 * for await (const line of readLines(Deno.stdin.readable)) console.log(JSON.parse(line));
 * ```
 * @param stream The bytes.
 * @param options The cap, and what a longer line does.
 * @returns The lines, as they arrive.
 * @throws {LineTooLongError} For a line over the cap, without `onTooLong`.
 */
export async function* readLines(
  stream: ReadableStream<Uint8Array>,
  options: ReadLinesOptions = {},
): AsyncGenerator<string> {
  const limit = options.maxLineBytes ?? DEFAULT_MAX_LINE_BYTES;
  const decoder = new TextDecoder();
  let parts: Uint8Array[] = []; // the start of the current line, from earlier chunks
  let size = 0; // their bytes
  let skipping = false; // inside a line over the cap, dropped up to its end
  const tooLong = () => {
    const error = new LineTooLongError(limit);
    if (!options.onTooLong) throw error;
    options.onTooLong(error);
    parts = [];
    size = 0;
    skipping = true;
  };
  // A line's bytes without its end; over the cap only when it is sure (a last `\r` may end it).
  const over = (n: number, last: number | undefined) => n > limit + 1 || (n > limit && last !== CR);
  for await (const chunk of stream) {
    let start = 0;
    for (let nl = chunk.indexOf(LF); nl >= 0; nl = chunk.indexOf(LF, start)) {
      const piece = chunk.subarray(start, nl);
      start = nl + 1;
      if (skipping) {
        skipping = false;
        continue;
      }
      let line = size ? concat([...parts, piece], size + piece.length) : piece;
      parts = [];
      size = 0;
      if (line.at(-1) === CR) line = line.subarray(0, -1);
      if (line.length > limit) {
        tooLong();
        skipping = false;
        continue;
      }
      yield decoder.decode(line);
    }
    if (start < chunk.length && !skipping) {
      const rest = chunk.slice(start);
      size += rest.length;
      parts.push(rest);
      if (over(size, rest.at(-1))) tooLong();
    }
  }
  if (!size) return;
  const line = concat(parts, size);
  if (line.length > limit) tooLong();
  else yield decoder.decode(line);
}

const LF = 0x0a;
const CR = 0x0d;

function byteSize(n: number): string {
  if (n >= 1024 * 1024 && n % (1024 * 1024) === 0) return `${n / (1024 * 1024)} MiB`;
  if (n >= 1024 && n % 1024 === 0) return `${n / 1024} KiB`;
  return `${n} bytes`;
}

/**
 * Reads a byte source line by line (journals), calling `onLine` with each complete line without its
 * `\n` and the offset just past it, then, when the bytes end without a newline, with the rest as an
 * incomplete line. `onLine` returning `false` stops the reading. The line is a view valid only during
 * the call; memory is bounded by the read buffer and the longest line, not the source. A callback,
 * not a generator: a promise per line would halve the speed of journal verification.
 *
 * @example
 * ```ts
 * // Counts a journal's complete lines, stopping at the first that is not a JSON object.
 * let lines = 0;
 * using file = await Deno.open(".framework/traces/run_01….jsonl");
 * await eachByteLine(file, (bytes, _end, complete) => {
 *   if (!complete || bytes[0] !== 0x7b) return false; // "{"
 *   lines++;
 * });
 * ```
 * @param source What to read (a file).
 * @param onLine Called for each line, in order.
 */
export async function eachByteLine(
  source: { read(into: Uint8Array): Promise<number | null> },
  onLine: (bytes: Uint8Array, end: number, complete: boolean) => boolean | void,
): Promise<void> {
  const chunk = new Uint8Array(256 * 1024);
  let carry: Uint8Array = EMPTY; // the start of a line that goes on in the next read
  let base = 0; // the stream offset of chunk[0]
  while (true) {
    const n = await source.read(chunk);
    if (n === null) break;
    const view = chunk.subarray(0, n);
    let start = 0;
    for (let nl = view.indexOf(0x0a); nl >= 0; nl = view.indexOf(0x0a, start)) {
      let line: Uint8Array = view.subarray(start, nl);
      if (carry.length) {
        line = concat([carry, line]);
        carry = EMPTY;
      }
      if (onLine(line, base + nl + 1, true) === false) return;
      start = nl + 1;
    }
    if (start < n) carry = concat([carry, view.subarray(start)]);
    base += n;
  }
  if (carry.length) onLine(carry, base, false);
}

const EMPTY = new Uint8Array(0);

function concat(parts: Uint8Array[], size = parts.reduce((n, p) => n + p.length, 0)): Uint8Array {
  const out = new Uint8Array(size);
  let at = 0;
  for (const p of parts) {
    out.set(p, at);
    at += p.length;
  }
  return out;
}
