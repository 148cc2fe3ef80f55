/**
 * Source-preserving edits of YAML text: set, delete and append at a path by splicing only the bytes of
 * the affected node, so every comment and every untouched line stays byte-identical. Each edit is
 * verified by parsing the result and comparing it with the expected value; if the splice cannot express
 * an edit faithfully, the yaml package's Document API (which keeps comments but may reflow) is used.
 *
 * @module
 */

import { setOwn } from "../own.ts";
import { isDeepStrictEqual } from "node:util";
import {
  Document,
  isMap,
  isScalar,
  isSeq,
  type Node,
  Pair,
  parseDocument,
  Scalar,
  YAMLMap,
  YAMLSeq,
} from "yaml";
import { FrameworkError } from "../errors.ts";

/** A concrete path: map keys as strings, list indexes as numbers. */
export type YamlPath = readonly (string | number)[];

type Edit = { start: number; end: number; text: string };

function lineStart(text: string, pos: number): number {
  return text.lastIndexOf("\n", pos - 1) + 1;
}

function lineEnd(text: string, pos: number): number {
  const i = text.indexOf("\n", pos);
  return i < 0 ? text.length : i;
}

function column(text: string, pos: number): number {
  return pos - lineStart(text, pos);
}

/** End of a node's value with a trailing line break dropped. */
function trimmedEnd(text: string, end: number): number {
  let e = end;
  if (text[e - 1] === "\n") e--;
  if (text[e - 1] === "\r") e--;
  return e;
}

/** Position just past the line that holds `pos - 1` (the start of the next line). */
function afterLine(text: string, end: number): number {
  if (end > 0 && text[end - 1] === "\n") return end;
  const e = lineEnd(text, end);
  return e < text.length ? e + 1 : e;
}

function isBlank(s: string): boolean {
  return /^[ \t]*$/.test(s);
}

/** The scalar style a new string takes: the old one, unless a one-line style cannot hold it. */
function keptStyle(old: Scalar | undefined, value: string): Scalar.Type | undefined {
  const multiline = value.includes("\n");
  if (old && typeof old.value === "string") {
    const blockStyle = old.type === "BLOCK_LITERAL" || old.type === "BLOCK_FOLDED";
    if (blockStyle || !multiline) return old.type;
  }
  return multiline ? "BLOCK_LITERAL" : undefined;
}

/**
 * Renders a value as it appears after `key:` (context `pair`: starts with a space, or with a line
 * break for a block collection) or after `- ` (context `item`). It is rendered inside a one-entry map
 * or list so block scalar indentation indicators are relative to the key or dash; continuation lines
 * are then shifted to `col`, the column of that key or dash.
 */
function renderAt(context: "pair" | "item", value: unknown, col: number, old?: Scalar): string {
  const doc = new Document();
  const inner = doc.createNode(value) as Node;
  if (isScalar(inner) && typeof value === "string") {
    const style = keptStyle(old, value);
    if (style) inner.type = style;
  }
  if (context === "pair") {
    const map = new YAMLMap();
    map.items.push(new Pair(new Scalar("k"), inner));
    doc.contents = map;
  } else {
    const seq = new YAMLSeq();
    seq.items.push(inner);
    doc.contents = seq;
  }
  const out = doc.toString({ lineWidth: 0, indent: 2, minContentWidth: 0 }).replace(/\n$/, "");
  const body = out.slice(context === "pair" ? 2 : 2);
  const pad = " ".repeat(col);
  const [first, ...rest] = body.split("\n");
  return [first, ...rest.map((l) => (l.length ? pad + l : l))].join("\n");
}

/** Whether rendered text starts a block scalar (`|` or `>` header). */
function isBlockScalarText(rendered: string): boolean {
  return /^ ?[|>]/.test(rendered);
}

/** A value in YAML flow style on one line (`{ a: 1, b: [ x ] }`), for flow contexts. */
function flowText(value: unknown): string {
  // Rendered as the item of a flow list, so scalars are quoted as a flow context requires.
  const doc = new Document();
  doc.contents = doc.createNode([value], { flow: true }) as Node;
  const out = doc.toString({ lineWidth: 0 }).replace(/\n$/, "");
  if (out.includes("\n") || !out.startsWith("[ ") || !out.endsWith(" ]")) {
    return JSON.stringify(value);
  }
  return out.slice(2, -2);
}

function keyText(key: string | number): string {
  return renderAt("item", String(key), 0);
}

function findPair(map: YAMLMap, key: string | number): Pair | undefined {
  return map.items.find((p) => isScalar(p.key) && String(p.key.value) === String(key)) as
    | Pair
    | undefined;
}

/** A located value: where it sits, so it can be replaced or removed. */
type Slot =
  | { kind: "root"; node: Node | null }
  | { kind: "pair"; map: YAMLMap; pair: Pair; node: Node | null; flow: boolean }
  | { kind: "item"; seq: YAMLSeq; index: number; node: Node | null; flow: boolean };

function nodeRange(node: Node | null | undefined): [number, number, number] | undefined {
  return node?.range ?? undefined;
}

/** Walks a path; returns the slots passed through and how far it got. */
function walk(doc: Document, path: YamlPath): { slots: Slot[]; depth: number } {
  const slots: Slot[] = [{ kind: "root", node: doc.contents as Node | null }];
  let node = doc.contents as Node | null;
  let inFlow = false;
  for (let i = 0; i < path.length; i++) {
    const key = path[i]!;
    if (isMap(node)) {
      const map = node;
      const pair = findPair(map, key);
      if (!pair) return { slots, depth: i };
      inFlow ||= !!map.flow;
      node = pair.value as Node | null;
      slots.push({ kind: "pair", map, pair, node, flow: inFlow });
    } else if (isSeq(node) && typeof key === "number" && key < node.items.length) {
      inFlow ||= !!node.flow;
      const seq = node;
      node = seq.items[key] as Node | null;
      slots.push({ kind: "item", seq, index: key, node, flow: inFlow });
    } else {
      return { slots, depth: i };
    }
  }
  return { slots, depth: path.length };
}

function colonAfter(text: string, keyEnd: number): number {
  const i = text.indexOf(":", keyEnd);
  if (i < 0) throw new Error("no colon after key");
  return i;
}

function isEmptyScalar(node: Node | null): boolean {
  if (node === null) return true;
  const r = nodeRange(node);
  return isScalar(node) && node.value === null && (!r || r[0] === r[1]);
}

/** Builds the splice that replaces the value held by a slot. */
function replaceSlot(text: string, slot: Slot, value: unknown): Edit {
  const node = slot.node;
  const range = nodeRange(node);
  if (slot.kind === "root") {
    const doc = new Document(value);
    const out = doc.toString({ lineWidth: 0, indent: 2 }).replace(/\n$/, "");
    if (!range) return { start: text.length, end: text.length, text: out + "\n" };
    return { start: range[0], end: trimmedEnd(text, range[1]), text: out };
  }
  if (slot.flow) {
    if (!range || isEmptyScalar(node)) throw new Error("empty value in a flow collection");
    return { start: range[0], end: range[1], text: flowText(value) };
  }
  // A non-empty flow collection keeps flow style; an empty one (`[]`, `{}`) grows into a block.
  const keepFlow = (isMap(node) || isSeq(node)) && !!node.flow && node.items.length > 0 &&
    value !== null && typeof value === "object";
  const old = isScalar(node) ? node : undefined;
  if (slot.kind === "item") {
    if (!range || isEmptyScalar(node)) throw new Error("empty sequence item");
    const dash = text.lastIndexOf("-", range[0]);
    const body = keepFlow ? flowText(value) : renderAt("item", value, column(text, dash), old);
    return withTrailingComment(text, {
      start: range[0],
      end: trimmedEnd(text, range[1]),
      text: body,
    });
  }
  const keyRange = nodeRange(slot.pair.key as Node)!;
  const col = column(text, keyRange[0]);
  const colon = colonAfter(text, keyRange[1]);
  const colonLineEnd = lineEnd(text, colon);
  const body = keepFlow ? ` ${flowText(value)}` : renderAt("pair", value, col, old);
  const block = body.startsWith("\n");
  if (!range || isEmptyScalar(node)) {
    const at = block ? colonLineEnd : colon + 1;
    return { start: at, end: at, text: body };
  }
  const end = trimmedEnd(text, range[1]);
  if (range[0] < colonLineEnd) {
    return withTrailingComment(text, { start: colon + 1, end, text: body });
  }
  if (block) return { start: colonLineEnd, end, text: body };
  const comment = text.slice(colon + 1, colonLineEnd).trim();
  return withTrailingComment(text, {
    start: colon + 1,
    end,
    text: body + (comment.startsWith("#") ? ` ${comment}` : ""),
  });
}

/**
 * A block scalar cannot be followed by a comment on its last line (it would become content): move a
 * trailing comment of the replaced value up onto the block scalar's header line.
 */
function withTrailingComment(text: string, edit: Edit): Edit {
  if (!isBlockScalarText(edit.text)) return edit;
  const tailEnd = lineEnd(text, edit.end);
  const tail = text.slice(edit.end, tailEnd).trim();
  if (!tail.startsWith("#")) return edit;
  const [header, ...rest] = edit.text.split("\n");
  return { start: edit.start, end: tailEnd, text: [`${header} ${tail}`, ...rest].join("\n") };
}

/** Builds the splice that adds `key: value` to a map. */
function insertPair(text: string, map: YAMLMap, key: string | number, value: unknown): Edit {
  const range = nodeRange(map)!;
  if (map.flow) {
    const last = map.items.at(-1);
    const entry = `${keyText(key)}: ${flowText(value)}`;
    if (!last) {
      const close = text.lastIndexOf("}", range[1]);
      return { start: close, end: close, text: entry };
    }
    const lastEnd = nodeRange(last.value as Node)?.[1] ?? nodeRange(last.key as Node)![1];
    return { start: lastEnd, end: lastEnd, text: `, ${entry}` };
  }
  const first = map.items[0]!;
  const col = column(text, nodeRange(first.key as Node)![0]);
  const last = map.items.at(-1)!;
  const lastEnd = nodeRange(last.value as Node)?.[1] ?? nodeRange(last.key as Node)![1];
  let at = afterLine(text, lastEnd);
  let prefix = "";
  if (at === text.length && !text.endsWith("\n")) prefix = "\n";
  if (at < lastEnd) at = lastEnd;
  const line = " ".repeat(col) + keyText(key) + ":" + renderAt("pair", value, col);
  return { start: at, end: at, text: `${prefix}${line}\n` };
}

/** Builds the splice that appends an item to a sequence. */
function appendItem(text: string, seq: YAMLSeq, value: unknown): Edit {
  const range = nodeRange(seq)!;
  if (seq.flow) {
    const last = seq.items.at(-1) as Node | undefined;
    if (!last) {
      const close = text.lastIndexOf("]", range[1]);
      return { start: close, end: close, text: flowText(value) };
    }
    const lastEnd = nodeRange(last)![1];
    return { start: lastEnd, end: lastEnd, text: `, ${flowText(value)}` };
  }
  const first = seq.items[0] as Node;
  const dash = text.lastIndexOf("-", nodeRange(first)![0]);
  const col = column(text, dash);
  const last = seq.items.at(-1) as Node;
  const at = afterLine(text, nodeRange(last)![1]);
  const prefix = at === text.length && !text.endsWith("\n") ? "\n" : "";
  return {
    start: at,
    end: at,
    text: `${prefix}${" ".repeat(col)}- ${renderAt("item", value, col)}\n`,
  };
}

/** Builds the splice that removes the value held by a slot (its key or dash line included). */
function removeSlot(text: string, slots: Slot[], value: unknown, path: YamlPath): Edit {
  const slot = slots.at(-1)!;
  const parentSlot = slots.at(-2)!;
  if (slot.kind === "root") throw new Error("cannot remove the root");
  const container = slot.kind === "pair" ? slot.map : slot.seq;
  if (slot.flow || container.items.length === 1) {
    // Rewrite the container: a flow collection as JSON, a block collection that becomes empty as {} or [].
    const parentValue = getAt(value, path.slice(0, -1));
    return replaceSlot(text, parentSlot, parentValue);
  }
  if (slot.kind === "pair") {
    const keyRange = nodeRange(slot.pair.key as Node)!;
    const start = lineStart(text, keyRange[0]);
    const end = nodeRange(slot.node)?.[1] ?? keyRange[1];
    if (isBlank(text.slice(start, keyRange[0]))) {
      return { start, end: afterLine(text, end), text: "" };
    }
    // The key shares its line with a "- " (first pair of a list item): pull the next pair up.
    const index = slot.map.items.indexOf(slot.pair);
    const next = slot.map.items[index + 1];
    if (!next) throw new Error("cannot remove the last pair on a dash line");
    return { start: keyRange[0], end: nodeRange(next.key as Node)![0], text: "" };
  }
  const range = nodeRange(slot.node)!;
  const dash = text.lastIndexOf("-", range[0]);
  const start = lineStart(text, dash);
  if (!isBlank(text.slice(start, dash))) throw new Error("nested dash");
  return { start, end: afterLine(text, range[1]), text: "" };
}

function getAt(value: unknown, path: YamlPath): unknown {
  let v = value;
  for (const key of path) v = (v as Record<string | number, unknown>)?.[key];
  return v;
}

/** Nests `value` under the remaining keys: (["a","b"], 1) gives {a: {b: 1}}. */
function nest(keys: YamlPath, value: unknown): unknown {
  let v = value;
  for (let i = keys.length - 1; i >= 0; i--) v = { [keys[i]!]: v };
  return v;
}

function apply(text: string, edit: Edit): string {
  return text.slice(0, edit.start) + edit.text + text.slice(edit.end);
}

function eolOf(text: string): string {
  return text.includes("\r\n") ? "\r\n" : "\n";
}

function withEol(edit: Edit, eol: string): Edit {
  return eol === "\n" ? edit : { ...edit, text: edit.text.replace(/\r?\n/g, eol) };
}

/** The expected JS value after an operation, computed on plain data. */
function expectedAfter(before: unknown, op: Op): unknown {
  const root = structuredClone(before ?? {}) as Record<string | number, unknown>;
  const path = op.path;
  if (op.kind === "append") {
    const list = getAt(root, path);
    if (Array.isArray(list)) list.push(op.value);
    else setPlain(root, path, [op.value]);
    return root;
  }
  if (op.kind === "set") {
    if (path.length === 0) return structuredClone(op.value);
    setPlain(root, path, structuredClone(op.value));
    return root;
  }
  const parent = getAt(root, path.slice(0, -1)) as Record<string | number, unknown> | unknown[];
  const last = path.at(-1)!;
  if (Array.isArray(parent)) parent.splice(last as number, 1);
  else delete parent[last];
  return root;
}

function setPlain(root: Record<string | number, unknown>, path: YamlPath, value: unknown): void {
  let v: Record<string | number, unknown> = root;
  for (const key of path.slice(0, -1)) {
    const next = Object.hasOwn(v, key) ? v[key] : undefined;
    if (next === null || typeof next !== "object") setOwn(v, key, {});
    v = v[key] as Record<string | number, unknown>;
  }
  setOwn(v, path.at(-1)!, value);
}

type Op =
  | { kind: "set"; path: YamlPath; value: unknown }
  | { kind: "delete"; path: YamlPath }
  | { kind: "append"; path: YamlPath; value: unknown };

/** Plans the splice for an operation. */
function plan(text: string, doc: Document, op: Op, expected: unknown): Edit {
  const { slots, depth } = walk(doc, op.path);
  if (op.kind === "delete") {
    if (depth < op.path.length) throw new Error("path does not exist");
    return removeSlot(text, slots, expected, op.path);
  }
  if (op.kind === "append" && depth === op.path.length) {
    const list = slots.at(-1)!.node;
    if (isSeq(list) && list.items.length > 0) return appendItem(text, list, op.value);
    // Missing, empty or null list: write the whole list.
    return replaceSlot(text, slots.at(-1)!, getAt(expected, op.path));
  }
  if (depth === op.path.length) {
    return replaceSlot(text, slots.at(-1)!, (op as { value: unknown }).value);
  }
  const holder = slots.at(-1)!;
  const rest = op.path.slice(depth);
  const newValue = op.kind === "append"
    ? nest(rest.slice(1), [op.value])
    : nest(rest.slice(1), op.value);
  if (isMap(holder.node) && holder.node.items.length > 0) {
    return insertPair(text, holder.node, rest[0]!, newValue);
  }
  if (
    holder.node === null || isEmptyScalar(holder.node) ||
    (isMap(holder.node) && holder.node.items.length === 0)
  ) {
    return replaceSlot(text, holder, getAt(expected, op.path.slice(0, depth)));
  }
  throw new Error("cannot descend into a scalar");
}

/** Applies an operation with the Document API (keeps comments, may reflow some lines). */
function documentFallback(doc: Document, op: Op): string {
  if (op.kind === "set") {
    if (op.path.length === 0) doc.contents = doc.createNode(op.value) as Node;
    else doc.setIn(op.path, doc.createNode(op.value));
  } else if (op.kind === "delete") {
    doc.deleteIn(op.path);
  } else {
    const list = doc.getIn(op.path);
    if (isSeq(list)) list.add(doc.createNode(op.value));
    else doc.setIn(op.path, doc.createNode([op.value]));
  }
  return doc.toString({ lineWidth: 0 });
}

function verify(text: string, expected: unknown): boolean {
  const doc = parseDocument(text, { uniqueKeys: true });
  if (doc.errors.length > 0) return false;
  return isDeepStrictEqual(doc.toJS() ?? {}, expected);
}

function run(text: string, op: Op): string {
  const doc = parseDocument(text, { uniqueKeys: true });
  if (doc.errors.length > 0) {
    throw new FrameworkError(
      "bad_input",
      `Cannot edit: the YAML does not parse: ${doc.errors[0]!.message.split("\n")[0]}`,
    );
  }
  const before = doc.toJS();
  const expected = expectedAfter(before, op);
  try {
    const edit = withEol(plan(text, doc, op, expected), eolOf(text));
    const out = apply(text, edit);
    if (verify(out, expected)) return out;
    if (Deno.env.get("FRAMEWORK_DEBUG_YAML_EDIT")) console.error("splice mismatch:\n" + out);
  } catch (err) {
    if (Deno.env.get("FRAMEWORK_DEBUG_YAML_EDIT")) console.error("splice failed:", err);
  }
  const out = documentFallback(parseDocument(text, { uniqueKeys: true }), op);
  if (verify(out, expected)) return out;
  throw new FrameworkError(
    "internal",
    "Internal error: the YAML edit could not be applied faithfully",
  );
}

/**
 * Sets the value at a path, creating missing maps on the way, keeping every other byte.
 *
 * @example
 * ```ts
 * setInText("a: 1 # note\nb: 2\n", ["a"], 5); // "a: 5 # note\nb: 2\n"
 * ```
 * @param text The YAML text.
 * @param path Concrete path (list indexes as numbers).
 * @param value A JSON value.
 * @returns The new text.
 */
export function setInText(text: string, path: YamlPath, value: unknown): string {
  return run(text, { kind: "set", path, value });
}

/**
 * Removes the value at a path (its key line, or its list item) and nothing else.
 *
 * @example
 * ```ts
 * deleteInText("a: 1\nb: 2\n", ["a"]); // "b: 2\n"
 * ```
 * @param text The YAML text.
 * @param path Concrete path to an existing value.
 * @returns The new text.
 */
export function deleteInText(text: string, path: YamlPath): string {
  return run(text, { kind: "delete", path });
}

/**
 * Appends an item to the list at a path, creating the list if it is missing.
 *
 * @example
 * ```ts
 * appendInText("skills:\n  - name: a\n", ["skills"], { name: "b" });
 * // "skills:\n  - name: a\n  - name: b\n"
 * ```
 * @param text The YAML text.
 * @param path Concrete path of the list.
 * @param value The new item.
 * @returns The new text.
 */
export function appendInText(text: string, path: YamlPath, value: unknown): string {
  return run(text, { kind: "append", path, value });
}
