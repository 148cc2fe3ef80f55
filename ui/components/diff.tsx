/**
 * A unified diff, coloured by line: file headers, hunks, additions, deletions and context.
 *
 * @module
 */

/**
 * Shows a unified diff.
 *
 * @param props The diff text.
 * @returns The diff.
 */
export function Diff(props: { text: string }) {
  return (
    <pre
      class="diff"
      aria-label="Unified diff"
    >{props.text.replace(/\n$/, "").split("\n").map((line, i) => (
      <span
        key={i}
        class={line.startsWith("+++") || line.startsWith("---")
          ? "d-file"
          : line.startsWith("@@")
          ? "d-hunk"
          : line.startsWith("+")
          ? "d-add"
          : line.startsWith("-")
          ? "d-del"
          : "d-ctx"}
      >
        {line + "\n"}
      </span>
    ))}</pre>
  );
}
