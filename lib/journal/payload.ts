/**
 * A payload as a journal line holds it: plain JSON (what `JSON.stringify` makes of it, errors as their
 * message), with well-formed strings and keys (a lone surrogate becomes U+FFFD), redacted
 * (`logging.redact`), and its canonical text (RFC 8785), made in one walk over the value.
 *
 * @module
 */

import { type FrozenSlot, frozenSlot, startsWithItems } from "../frozen_slot.ts";
import { setOwn } from "../own.ts";
import { REDACTED, type Redaction, redactsField, redactText } from "./redact.ts";

/** A payload ready to journal. */
export interface JournalPayload {
  /** The plain, well-formed, redacted value. */
  payload: Record<string, unknown>;
  /** Its canonical JSON text. */
  json: string;
}

const errorsAsMessages = (_key: string, v: unknown) =>
  v instanceof Error ? { error: v.message } : v;

/**
 * Makes a payload plain, well-formed and redacted, and serializes it canonically.
 *
 * @example
 * ```ts
 * journalPayload({ b: 1, a: "x" }, undefined).json; // '{"a":"x","b":1}'
 * ```
 * @param value The payload as the runner has it.
 * @param redaction The compiled `logging.redact`.
 * @returns The journaled value and its canonical text.
 */
export function journalPayload(value: unknown, redaction: Redaction | undefined): JournalPayload {
  // What the runner journals is nearly always plain data already (objects, arrays, strings, numbers,
  // booleans, null): one walk copies it as the round trip below would and makes its text.
  if (isPlainObject(value)) {
    const json = plainText(value, redaction, 0);
    if (json !== undefined) return { payload: made as Record<string, unknown>, json };
  }
  // The native round trip does JSON's own rules (toJSON, dropped undefined and functions, non-finite
  // numbers as null) and gives a fresh value, which the walk then repairs in place.
  const fresh = JSON.parse(JSON.stringify(value, errorsAsMessages) ?? "{}");
  const payload = fresh !== null && typeof fresh === "object" && !Array.isArray(fresh) ? fresh : {};
  return { payload, json: canonical(payload, redaction) };
}

function text(s: string, redaction: Redaction | undefined): string {
  const fixed = s.isWellFormed() ? s : s.toWellFormed();
  return redaction ? redactText(fixed, redaction) : fixed;
}

/**
 * The canonical text of a parsed JSON value, repairing its strings and keys in place (a container
 * repairs its own strings, so a string is never redacted twice).
 */
function canonical(v: unknown, redaction: Redaction | undefined): string {
  if (v === null || typeof v !== "object") return JSON.stringify(v);
  if (Array.isArray(v)) {
    let out = "[";
    for (let i = 0; i < v.length; i++) {
      let item = v[i];
      if (typeof item === "string") item = v[i] = text(item, redaction);
      out += (i ? "," : "") + canonical(item, redaction);
    }
    return out + "]";
  }
  const record = v as Record<string, unknown>;
  let keys = Object.keys(record);
  if (!keys.every((k) => k.isWellFormed())) {
    // Keys that become the same once repaired: the first one keeps its value.
    const repaired: Record<string, unknown> = {};
    for (const k of keys) {
      const fixed = k.toWellFormed();
      if (!Object.hasOwn(repaired, fixed)) setOwn(repaired, fixed, record[k]);
    }
    for (const k of keys) delete record[k];
    keys = Object.keys(repaired);
    for (const k of keys) setOwn(record, k, repaired[k]);
  }
  keys.sort(); // RFC 8785: by UTF-16 code units, as JavaScript compares strings
  let out = "{";
  for (let i = 0; i < keys.length; i++) {
    const k = keys[i]!;
    let item = record[k];
    if (redaction && redactsField(k, redaction)) item = REDACTED;
    else if (typeof item === "string") item = text(item, redaction);
    if (item !== record[k]) setOwn(record, k, item);
    out += (i ? ',"' : '"') + jsonKey(k) + '":' + canonical(item, redaction);
  }
  return out + "}";
}

/** Where each key goes in key order: by insertion for an object's usual few, else by sorting. */
function keyOrder(names: readonly string[]): number[] {
  const order: number[] = [];
  if (names.length > 16) {
    for (let i = 0; i < names.length; i++) order.push(i);
    return order.sort((a, b) => (names[a]! < names[b]! ? -1 : 1));
  }
  for (let i = 0; i < names.length; i++) {
    let at = i;
    while (at > 0 && names[order[at - 1]!]! > names[i]!) at--;
    order.splice(at, 0, i);
  }
  return order;
}

/** A key's JSON string without its quotes (most keys need no escaping). */
function jsonKey(k: string): string {
  for (let i = 0; i < k.length; i++) {
    const c = k.charCodeAt(i);
    // Printable ASCII but `"` and `\` is written as it is; anything else is escaped as JSON does.
    if (c < 0x20 || c > 0x7e || c === 0x22 || c === 0x5c) return JSON.stringify(k).slice(1, -1);
  }
  return k;
}

/** Deeper than this, the general path decides (it refuses a cycle as `JSON.stringify` does). */
const PLAIN_DEPTH = 64;

/** The copy {@link plainText} made of the value it was last given. */
let made: unknown;

/** An object `JSON.stringify` writes as its own enumerable properties, with no `toJSON`. */
function isPlainObject(v: unknown): v is Record<string, unknown> {
  if (v === null || typeof v !== "object" || Array.isArray(v)) return false;
  const proto = Object.getPrototypeOf(v);
  return (proto === Object.prototype || proto === null) &&
    typeof (v as { toJSON?: unknown }).toJSON !== "function";
}

/**
 * The canonical text of plain data, with the copy the JSON round trip and the repairs of
 * {@link canonical} would make of it left in {@link made} (its keys in their own order): strings
 * well-formed and redacted, a non-finite number `null`, `-0` as `0`, undefined, a function or a
 * symbol left out of an object and `null` in an array. Anything else (a class instance, a `Date`, an
 * `Error`, a `toJSON`, a bigint, a key that is not well-formed, a value nested too deep) answers
 * `undefined`: the general path takes the whole payload.
 */
function plainText(
  v: unknown,
  redaction: Redaction | undefined,
  depth: number,
): string | undefined {
  switch (typeof v) {
    case "string": {
      const fixed = text(v, redaction);
      made = fixed;
      return JSON.stringify(fixed);
    }
    case "number":
      made = Number.isFinite(v) ? (v === 0 ? 0 : v) : null;
      // A finite number's JSON is its string (ECMA-262 JSON.stringify: ToString).
      return made === null ? "null" : String(made);
    case "boolean":
      made = v;
      return v ? "true" : "false";
    case "object":
      break;
    default:
      return undefined;
  }
  if (v === null) {
    made = null;
    return "null";
  }
  if (depth >= PLAIN_DEPTH) return undefined;
  if (Array.isArray(v)) {
    if (Object.getPrototypeOf(v) !== Array.prototype) return undefined;
    const copy: unknown[] = new Array(v.length);
    let out = "[";
    // Items journaled together before (a thread's history): their text as kept, and in the copy the
    // items themselves (frozen, and the same once made plain: nothing in them is read again).
    const list = listAt(v, redaction, depth);
    const from = list ? list.items.length : 0;
    if (list) {
      out += list.text;
      for (let i = 0; i < from; i++) copy[i] = list.items[i];
    }
    for (let i = from; i < v.length; i++) {
      const item = v[i];
      const absent = item === undefined || typeof item === "function" || typeof item === "symbol";
      const itemText = absent ? "null" : plainText(item, redaction, depth + 1);
      if (itemText === undefined) return undefined;
      copy[i] = absent ? null : made;
      out += (i ? "," : "") + itemText;
    }
    made = copy;
    return out + "]";
  }
  if (!isPlainObject(v)) return undefined;
  // A frozen object of plain data values (a thread's earlier turn, given to each of its runs) is
  // walked once per redaction: its text and copy are kept with it (nothing in it can change; an
  // accessor could, so an object with one is walked every time). Each use gets a copy of its own.
  let frozen = Object.isFrozen(v);
  let slot: Slot | undefined;
  if (frozen) {
    slot = slotOf(v);
    const known = slot ? slot.memo : frozenTexts.get(v);
    if (known && known.redaction === redaction) {
      made = { ...known.copy };
      return known.text;
    }
    frozen = Object.values(Object.getOwnPropertyDescriptors(v)).every((d) => "value" in d);
  }
  const keys = Object.keys(v);
  // Each key beside its value's text, put in key order as they come (RFC 8785: by UTF-16 code
  // units, as JavaScript compares strings; an object's own keys are never equal).
  const names: string[] = [];
  const texts: string[] = [];
  const copy: Record<string, unknown> = {};
  for (const k of keys) {
    if (!k.isWellFormed()) return undefined;
    let item = v[k];
    if (item === undefined || typeof item === "function" || typeof item === "symbol") continue;
    if (redaction && redactsField(k, redaction)) item = REDACTED;
    const itemText = plainText(item, redaction, depth + 1);
    if (itemText === undefined) return undefined;
    if (made !== null && typeof made === "object") frozen = false;
    setOwn(copy, k, made);
    names.push(k);
    texts.push(itemText);
  }
  const order = keyOrder(names);
  let out = "{";
  for (let i = 0; i < order.length; i++) {
    const j = order[i]!;
    out += (i ? ',"' : '"') + jsonKey(names[j]!) + '":' + texts[j];
  }
  out += "}";
  if (frozen) {
    const memo = { redaction, text: out, copy: { ...copy } };
    if (slot) slot.memo = memo;
    else frozenTexts.set(v, memo);
  }
  made = copy;
  return out;
}

/** A frozen object's text and copy once walked, with the redaction they were made under. */
interface FrozenText {
  redaction: Redaction | undefined;
  text: string;
  copy: Record<string, unknown>;
}

/** The text and copy of each frozen object walked that has no slot of its own. */
const frozenTexts = new WeakMap<object, FrozenText>();

/**
 * What the journal keeps in a frozen value's slot (lib/frozen_slot.ts: a value frozen by
 * `freezeWithSlot`): the value's own text, and the list it is the first item of.
 */
interface Slot extends FrozenSlot {
  memo?: FrozenText;
  list?: JournalList;
}

/** Items journaled together, at the start of arrays (lib/runs/threads.ts: a thread's history). */
interface JournalList {
  items: readonly object[];
  /** The list these items follow, and how many of its first items they dropped (until made). */
  after?: { list: JournalList; dropped: number };
  /** Their text, made under one redaction. */
  made?: ListText;
}

/** A list's items as one text (comma-separated, without brackets) and where each item's ends. */
interface ListText {
  redaction: Redaction | undefined;
  text: string;
  ends: number[];
}

/**
 * Marks items frozen by `freezeWithSlot` (lib/frozen_slot.ts) as journaled together, at the start
 * of arrays (the history each run of a thread is given, then its own messages). Their text is made
 * once, and when they are the items of the list `after` names, less its first `dropped`, with some
 * added (the thread's next turn), it is made from that list's text: the history's older items are
 * not read again. A journaled array that starts with exactly these items (the same objects) takes
 * their text; anything else is walked item by item as before.
 *
 * @example
 * ```ts
 * import { freezeWithSlot } from "../frozen_slot.ts";
 *
 * const turn = (q: string, a: string) => [
 *   freezeWithSlot({ role: "user", content: q }),
 *   freezeWithSlot({ role: "assistant", content: a }),
 * ];
 * const first = [...turn("q1", "a1"), ...turn("q2", "a2")];
 * journalTogether(first);
 * journalPayload({ append: [...first] }, undefined);
 * const next = [...first.slice(2), ...turn("q3", "a3")];
 * journalTogether(next, { items: first, dropped: 2 }); // its text: first's, less q1 and a1, then q3, a3
 * ```
 * @param items The items, in order.
 * @param after The items journaled together before, and how many of their first ones these drop.
 */
export function journalTogether(
  items: readonly object[],
  after?: { items: readonly object[]; dropped: number },
): void {
  const slot = items.length ? slotOf(items[0]) : undefined;
  if (!slot) return;
  // Read before this list takes the slot: both may start with the same item (nothing dropped).
  const previous = after?.items.length ? slotOf(after.items[0])?.list : undefined;
  slot.list = { items };
  // Only a list whose text was made is followed (a chain of lists never made is not kept alive),
  // and only when these items start with the ones it kept, in order.
  if (!after || previous?.items !== after.items || previous.made === undefined) return;
  if (!startsWithItems(items, after.items, after.dropped)) return;
  slot.list.after = { list: previous, dropped: after.dropped };
}

/**
 * Makes the text of items marked by {@link journalTogether} now, under a redaction, so that the
 * payload that journals them next (as a field of it: a model call's `append`) finds it made: the
 * runs of a thread make the next turn's history text while the disk writes the turn that just ended
 * (lib/runs/threads.ts), not when that turn has started. Items not marked together are left alone.
 *
 * @example
 * ```ts
 * import { freezeWithSlot } from "../frozen_slot.ts";
 *
 * const history = [freezeWithSlot({ role: "user", content: "Hi" })];
 * journalTogether(history);
 * prepareJournalList(history, undefined);
 * journalPayload({ append: [...history] }, undefined).json; // the text made above, not walked again
 * ```
 * @param items The items, as {@link journalTogether} was given them.
 * @param redaction The redaction of the journal that will hold them.
 */
export function prepareJournalList(
  items: readonly object[],
  redaction: Redaction | undefined,
): void {
  // As deep as a payload's field: where a model call's messages are journaled.
  listAt(items, redaction, 1);
}

function slotOf(item: unknown): Slot | undefined {
  return frozenSlot(item) as Slot | undefined;
}

/**
 * The list an array starts with (the same items), with its text under `redaction`, made now if
 * need be; undefined when there is none, or its items cannot be journaled as they are.
 */
function listAt(
  v: readonly unknown[],
  redaction: Redaction | undefined,
  depth: number,
): { items: readonly object[]; text: string } | undefined {
  const list = slotOf(v[0])?.list;
  if (!list || !startsWithItems(v, list.items)) return undefined;
  const known = list.made && list.made.redaction === redaction
    ? list.made
    : makeListText(list, redaction, depth);
  return known && { items: list.items, text: known.text };
}

/** A list's text: from the list it follows when that one's is known, else item by item. */
function makeListText(
  list: JournalList,
  redaction: Redaction | undefined,
  depth: number,
): ListText | undefined {
  let text = "";
  let ends: number[] = [];
  let next = 0;
  const before = list.after?.list.made;
  if (before && before.redaction === redaction) {
    const { dropped } = list.after!;
    const start = dropped ? before.ends[dropped - 1]! + 1 : 0; // past the comma
    text = before.text.slice(start);
    ends = before.ends.slice(dropped).map((e) => e - start);
    next = ends.length;
  }
  for (; next < list.items.length; next++) {
    const item = list.items[next]!;
    // A message of strings alone, with nothing redacted (a thread's earlier turn): written as it is.
    let itemText = redaction === undefined ? stringsText(item) : undefined;
    if (itemText === undefined) {
      itemText = plainText(item, redaction, depth + 1);
      // An item that cannot be journaled as it is, or that the walk changes (a repaired or redacted
      // string): the array is walked item by item, each then getting a copy of its own.
      if (itemText === undefined || !sameAs(made, item)) return undefined;
    }
    text += (next ? "," : "") + itemText;
    ends.push(text.length);
  }
  list.after = undefined;
  list.made = { redaction, text, ends };
  return list.made;
}

/**
 * The canonical text of a plain object whose values are all well-formed strings (a thread's earlier
 * message), as {@link plainText} makes it with nothing redacted, but without the copy and the kept
 * text it makes: such an object is journaled unchanged, so it is its own copy. Undefined for
 * anything else (the walk decides).
 */
function stringsText(item: object): string | undefined {
  if (!isPlainObject(item)) return undefined;
  const keys = Object.keys(item);
  const texts: string[] = [];
  for (const k of keys) {
    const v = item[k];
    if (typeof v !== "string" || !v.isWellFormed() || !k.isWellFormed()) return undefined;
    texts.push(JSON.stringify(v));
  }
  const order = keyOrder(keys);
  let out = "{";
  for (let i = 0; i < order.length; i++) {
    const j = order[i]!;
    out += (i ? ',"' : '"') + jsonKey(keys[j]!) + '":' + texts[j];
  }
  return out + "}";
}

/** Whether a plain copy has the same values as the object it was made of (one level deep). */
function sameAs(copy: unknown, item: object): boolean {
  if (copy === null || typeof copy !== "object") return false;
  const keys = Object.keys(item);
  if (Object.keys(copy).length !== keys.length) return false;
  for (const k of keys) {
    if ((copy as Record<string, unknown>)[k] !== (item as Record<string, unknown>)[k]) return false;
  }
  return true;
}
