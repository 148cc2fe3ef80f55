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
