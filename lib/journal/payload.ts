/**
 * A payload as a journal line holds it: plain JSON (what `JSON.stringify` makes of it, errors as their
 * message), with well-formed strings and keys (a lone surrogate becomes U+FFFD), redacted
 * (`logging.redact`), and its canonical text (RFC 8785), made in one walk over the value.
 *
 * @module
 */

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

/** A key's JSON string without its quotes (most keys need no escaping). */
function jsonKey(k: string): string {
  return /^[\x20-\x21\x23-\x5b\x5d-\x7e]*$/.test(k) ? k : JSON.stringify(k).slice(1, -1);
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
      return JSON.stringify(made);
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
    for (let i = 0; i < v.length; i++) {
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
  if (frozen) {
    const known = frozenTexts.get(v);
    if (known && known.redaction === redaction) {
      made = { ...known.copy };
      return known.text;
    }
    frozen = Object.values(Object.getOwnPropertyDescriptors(v)).every((d) => "value" in d);
  }
  const keys = Object.keys(v);
  const texts = new Map<string, string>();
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
    texts.set(k, itemText);
  }
  const sorted = [...texts.keys()].sort(); // RFC 8785: by UTF-16 code units
  let out = "{";
  for (let i = 0; i < sorted.length; i++) {
    const k = sorted[i]!;
    out += (i ? ',"' : '"') + jsonKey(k) + '":' + texts.get(k);
  }
  out += "}";
  if (frozen) frozenTexts.set(v, { redaction, text: out, copy: { ...copy } });
  made = copy;
  return out;
}

/** The text and copy of each frozen object walked, with the redaction they were made under. */
const frozenTexts = new WeakMap<
  object,
  { redaction: Redaction | undefined; text: string; copy: Record<string, unknown> }
>();
