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
