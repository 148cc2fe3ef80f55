/**
 * Asking the person at the terminal a question (trusting a folder, deciding a tool approval): the
 * question on stderr, the answer one line of stdin.
 *
 * @module
 */

/**
 * Asks a question on stderr and reads one line of stdin (trimmed; empty at the end of input).
 *
 * @example
 * ```ts
 * if (Deno.stdin.isTerminal() && /^y/i.test(await askOnTerminal("Go on? [y/N] "))) {
 *   console.error("going on");
 * }
 * ```
 * @param question The question, with its own trailing space.
 * @returns The answer.
 */
export async function askOnTerminal(question: string): Promise<string> {
  await Deno.stderr.write(new TextEncoder().encode(question));
  const buf = new Uint8Array(1024);
  const decoder = new TextDecoder();
  let line = "";
  while (!line.includes("\n")) {
    const n = await Deno.stdin.read(buf);
    if (n === null) break;
    line += decoder.decode(buf.subarray(0, n), { stream: true });
  }
  return line.split("\n")[0]!.trim();
}
