/**
 * A JSON value as a collapsible tree: objects and arrays fold, the first levels open; long strings
 * keep their line breaks.
 *
 * @module
 */

import type { JSX } from "preact";
import { useState } from "preact/hooks";

/**
 * A JSON tree.
 *
 * @param props The value, the levels open at first (default 2) and a label for the root.
 * @returns The tree.
 */
export function JsonView(props: { value: unknown; open?: number; label?: string }) {
  return (
    <div class="json">
      <Node value={props.value} depth={0} open={props.open ?? 2} label={props.label} />
    </div>
  );
}

function Node(
  props: { value: unknown; depth: number; open: number; label?: string | undefined },
): JSX.Element {
  const { value, depth, open, label } = props;
  const key = label !== undefined ? <span class="json-key">{label}:</span> : null;
  if (value !== null && typeof value === "object") {
    const entries = Array.isArray(value)
      ? value.map((v, i) => [String(i), v] as const)
      : Object.entries(value as Record<string, unknown>);
    const [l, r] = Array.isArray(value) ? ["[", "]"] : ["{", "}"];
    if (!entries.length) {
      return (
        <div class="json-row">
          {key}
          <span class="json-punct">{l}{r}</span>
        </div>
      );
    }
    return (
      <details class="json-node" open={depth < open}>
        <summary>
          {key}
          <span class="json-punct">{l}</span>
          <span class="json-count">
            {entries.length} {Array.isArray(value) ? "items" : "keys"}
          </span>
          <span class="json-punct json-close-inline">{r}</span>
        </summary>
        <div class="json-children">
          {entries.map(([k, v]) => (
            <Node key={k} value={v} depth={depth + 1} open={open} label={k} />
          ))}
        </div>
      </details>
    );
  }
  return (
    <div class="json-row">
      {key}
      <Scalar value={value} />
    </div>
  );
}

function Scalar(props: { value: unknown }) {
  const v = props.value;
  if (typeof v === "string") return <LongString text={v} />;
  if (typeof v === "number") return <span class="json-number">{String(v)}</span>;
  if (typeof v === "boolean") return <span class="json-bool">{String(v)}</span>;
  return <span class="json-null">null</span>;
}

/** Strings longer than this fold to their start until opened. */
const FOLD_AT = 400;

function LongString(props: { text: string }) {
  const [open, setOpen] = useState(false);
  const t = props.text;
  if (t.length <= FOLD_AT || open) return <span class="json-string">"{t}"</span>;
  return (
    <span class="json-string">
      "{t.slice(0, 240)}…"
      <button type="button" class="json-more" onClick={() => setOpen(true)}>
        show all {t.length} characters
      </button>
    </span>
  );
}
