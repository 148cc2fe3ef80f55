/**
 * The Use tab's message bridge: what a sandboxed page may ask. Only `framework:run` for the page's
 * own harness, with either literal `input` text or one `file` (a plain name and its bytes), and
 * optionally `thread: true` (a chat page: the run is a turn of the one thread the bridge keeps for
 * the frame; the page can never name a thread); every other message, field or shape is refused
 * with a reason the page is told.
 *
 * @module
 */

/** The largest input text and file the bridge passes on. */
export const BRIDGE_LIMITS = { inputChars: 100_000, fileBytes: 1024 * 1024, nameChars: 200 };

/** A run the bridge accepts; `thread` makes it a turn of the frame's own thread. */
export type BridgeRun =
  & ({ input: string } | { file: { name: string; bytes: Uint8Array } })
  & { thread?: true };

/**
 * Checks a message from the preview.
 *
 * @example
 * ```ts
 * bridgeRequest({ type: "framework:run", harness: "bot", input: "hi" }, "bot"); // { input: "hi" }
 * bridgeRequest({ type: "framework:run", harness: "other", input: "hi" }, "bot"); // { error: … }
 * bridgeRequest({ type: "framework:run", harness: "bot", input: "hi", thread: true }, "bot");
 * // { input: "hi", thread: true }
 * bridgeRequest({ type: "framework:run", harness: "bot", input: "hi", thread: "thr_…" }, "bot");
 * // { error: "thread must be true: …" }
 * ```
 * @param data The message's data.
 * @param harnessId The harness the page belongs to.
 * @returns The run to make, or why the message is refused.
 */
export function bridgeRequest(data: unknown, harnessId: string): BridgeRun | { error: string } {
  if (!data || typeof data !== "object" || Array.isArray(data)) {
    return { error: "The message is not a framework:run request" };
  }
  const m = data as Record<string, unknown>;
  if (m.type !== "framework:run") return { error: "Only framework:run is answered" };
  const unknown = Object.keys(m).filter((k) =>
    !["type", "harness", "input", "file", "thread"].includes(k)
  );
  if (unknown.length) return { error: `Unknown field ${JSON.stringify(unknown[0])}` };
  if (m.harness !== harnessId) {
    return { error: `This page may only run ${harnessId}, not ${JSON.stringify(m.harness)}` };
  }
  if (m.thread !== undefined && m.thread !== true) {
    return {
      error:
        "thread must be true: the workbench keeps this page's one thread, and a page never names a thread",
    };
  }
  const run = bridgeInput(m);
  if ("error" in run || m.thread !== true) return run;
  return { ...run, thread: true };
}

/** The input of a run message: literal text, or one plain-named file within the limits. */
function bridgeInput(m: Record<string, unknown>): BridgeRun | { error: string } {
  if ((m.input === undefined) === (m.file === undefined)) {
    return { error: "Send either input (text) or file" };
  }
  if (m.input !== undefined) {
    if (typeof m.input !== "string") return { error: "input must be text" };
    if (m.input.length > BRIDGE_LIMITS.inputChars) {
      return { error: `input is longer than ${BRIDGE_LIMITS.inputChars} characters` };
    }
    return { input: m.input };
  }
  const file = m.file as Record<string, unknown> | null;
  if (!file || typeof file !== "object" || typeof file.name !== "string") {
    return { error: "file must be {name, bytes}" };
  }
  const name = file.name;
  if (
    !name || name.length > BRIDGE_LIMITS.nameChars || /[\\/\0]/.test(name) || name.startsWith(".")
  ) {
    return { error: `Refused file name ${JSON.stringify(name)}: a plain name, not a path` };
  }
  const bytes = file.bytes instanceof Uint8Array
    ? file.bytes
    : file.bytes instanceof ArrayBuffer
    ? new Uint8Array(file.bytes)
    : null;
  if (!bytes) return { error: "file.bytes must be the file's bytes" };
  if (bytes.length > BRIDGE_LIMITS.fileBytes) {
    return { error: `The file is larger than ${BRIDGE_LIMITS.fileBytes} bytes` };
  }
  return { file: { name, bytes } };
}
