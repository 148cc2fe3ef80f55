/**
 * Reading a byte stream line by line (NDJSON requests on stdin, the sandbox's protocol): the one line
 * reader of the framework.
 *
 * @module
 */

/**
 * The lines of a stream, without their `\n`; the last one is yielded even without a newline.
 *
 * @example
 * ```ts
 * for await (const line of readLines(Deno.stdin.readable)) console.log(JSON.parse(line));
 * ```
 * @param stream The bytes.
 * @returns The lines, as they arrive.
 */
export async function* readLines(stream: ReadableStream<Uint8Array>): AsyncGenerator<string> {
  const decoder = new TextDecoder();
  let buffer = "";
  for await (const chunk of stream) {
    buffer += decoder.decode(chunk, { stream: true });
    let nl: number;
    while ((nl = buffer.indexOf("\n")) >= 0) {
      yield buffer.slice(0, nl);
      buffer = buffer.slice(nl + 1);
    }
  }
  buffer += decoder.decode();
  if (buffer) yield buffer;
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
 * using file = await Deno.open(path);
 * await eachByteLine(file, (bytes, _end, complete) => complete && check(bytes));
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
        line = concat(carry, line);
        carry = EMPTY;
      }
      if (onLine(line, base + nl + 1, true) === false) return;
      start = nl + 1;
    }
    if (start < n) carry = concat(carry, view.subarray(start));
    base += n;
  }
  if (carry.length) onLine(carry, base, false);
}

const EMPTY = new Uint8Array(0);

function concat(a: Uint8Array, b: Uint8Array): Uint8Array {
  const out = new Uint8Array(a.length + b.length);
  out.set(a);
  out.set(b, a.length);
  return out;
}
