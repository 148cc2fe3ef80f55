/**
 * What a harness's generated page asks for (docs/shipping.md, The page): vocabulary, so the spec's
 * schema, `framework generate`, the copilot's tool, the workbench API and the Use tab share one list.
 *
 * - `text`, `url`, `file`: one request, one run, its result;
 * - `chat`: a conversation: the page keeps one thread for its session and each message is a turn.
 *
 * @module
 */

/** The input kinds of a generated page. */
export const INTERFACE_INPUTS = ["text", "url", "file", "chat"] as const;

/** One of {@link INTERFACE_INPUTS}. */
export type InterfaceInput = typeof INTERFACE_INPUTS[number];

/**
 * Whether a value names an input kind.
 *
 * @example
 * ```ts
 * isInterfaceInput("chat"); // true
 * isInterfaceInput("form"); // false
 * ```
 * @param value Anything.
 * @returns Whether it is one of {@link INTERFACE_INPUTS}.
 */
export function isInterfaceInput(value: unknown): value is InterfaceInput {
  return (INTERFACE_INPUTS as readonly unknown[]).includes(value);
}

/** The kinds as a person reads them: `text, url, file or chat`. */
export const INTERFACE_INPUTS_TEXT = `${INTERFACE_INPUTS.slice(0, -1).join(", ")} or ${
  INTERFACE_INPUTS.at(-1)
}`;
