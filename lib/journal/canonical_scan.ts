/**
 * A byte scanner that confirms a journal line is already in canonical form (RFC 8785, as
 * `canonicalJson` writes it), so the verifier can hash the line's own bytes instead of parsing and
 * re-serializing every event. It only ever *confirms*: any construct it does not judge here (an
 * escape other than the ones JSON.stringify writes, a non-ASCII or escaped key, a number whose text
 * is not what JavaScript prints for it, malformed UTF-8) makes it answer "unsure", and the caller
 * falls back to the full parse-and-compare check, so the verdict never depends on this shortcut.
 *
 * @module
 */

/** Answer of a scan that could not confirm canonical form. */
export const UNSURE = -1;

const QUOTE = 0x22;
const BACKSLASH = 0x5c;
const COMMA = 0x2c;
const COLON = 0x3a;

/**
 * Scans one canonical JSON value.
 *
 * @param b The bytes.
 * @param i Where the value starts.
 * @param end Where the bytes end (exclusive).
 * @returns The index just after the value, or {@link UNSURE}.
 */
export function scanValue(b: Uint8Array, i: number, end: number): number {
  if (i >= end) return UNSURE;
  const c = b[i]!;
  if (c === QUOTE) return scanString(b, i, end);
  if (c === 0x7b) return scanObject(b, i, end);
  if (c === 0x5b) return scanArray(b, i, end);
  if (c === 0x74) return literal(b, i, end, TRUE);
  if (c === 0x66) return literal(b, i, end, FALSE);
  if (c === 0x6e) return literal(b, i, end, NULL);
  if (c === 0x2d || (c >= 0x30 && c <= 0x39)) return scanNumber(b, i, end);
  return UNSURE;
}

const TRUE = [0x74, 0x72, 0x75, 0x65];
const FALSE = [0x66, 0x61, 0x6c, 0x73, 0x65];
const NULL = [0x6e, 0x75, 0x6c, 0x6c];

function literal(b: Uint8Array, i: number, end: number, word: number[]): number {
  if (i + word.length > end) return UNSURE;
  for (let k = 0; k < word.length; k++) if (b[i + k] !== word[k]) return UNSURE;
  return i + word.length;
}

/**
 * Scans a canonical JSON string: printable characters as themselves, `"` and `\` escaped, control
 * characters as `\b \f \n \r \t` or `\u00xx` (lowercase), well-formed UTF-8.
 *
 * @param b The bytes.
 * @param i The opening quote.
 * @param end Where the bytes end.
 * @returns The index after the closing quote, or {@link UNSURE}.
 */
export function scanString(b: Uint8Array, i: number, end: number): number {
  if (b[i] !== QUOTE) return UNSURE;
  i++;
  while (i < end) {
    const c = b[i]!;
    if (c === QUOTE) return i + 1;
    if (c < 0x20) return UNSURE;
    if (c === BACKSLASH) {
      const e = b[i + 1];
      if (
        e === QUOTE || e === BACKSLASH || e === 0x62 || e === 0x66 || e === 0x6e || e === 0x72 ||
        e === 0x74
      ) {
        i += 2;
        continue;
      }
      // \u00xx for the other control characters, lowercase hex, as JSON.stringify writes them.
      if (e !== 0x75 || i + 6 > end || b[i + 2] !== 0x30 || b[i + 3] !== 0x30) return UNSURE;
      const h = hex(b[i + 4]!) * 16 + hex(b[i + 5]!);
      if (!(h >= 0 && h < 0x20) || h === 8 || h === 9 || h === 10 || h === 12 || h === 13) {
        return UNSURE;
      }
      i += 6;
      continue;
    }
    if (c < 0x80) {
      i++;
      continue;
    }
    const n = utf8Length(b, i, end);
    if (n === 0) return UNSURE;
    i += n;
  }
  return UNSURE;
}

/** A lowercase hex digit's value, or a large negative number. */
function hex(c: number): number {
  if (c >= 0x30 && c <= 0x39) return c - 0x30;
  if (c >= 0x61 && c <= 0x66) return c - 0x61 + 10;
  return -1000;
}

/** The length of a well-formed UTF-8 sequence of 2–4 bytes at i, or 0 (RFC 3629 table). */
function utf8Length(b: Uint8Array, i: number, end: number): number {
  const c = b[i]!;
  const cont = (k: number, lo = 0x80, hi = 0xbf) =>
    i + k < end && b[i + k]! >= lo && b[i + k]! <= hi;
  if (c >= 0xc2 && c <= 0xdf) return cont(1) ? 2 : 0;
  if (c === 0xe0) return cont(1, 0xa0) && cont(2) ? 3 : 0;
  if ((c >= 0xe1 && c <= 0xec) || c === 0xee || c === 0xef) return cont(1) && cont(2) ? 3 : 0;
  if (c === 0xed) return cont(1, 0x80, 0x9f) && cont(2) ? 3 : 0;
  if (c === 0xf0) return cont(1, 0x90) && cont(2) && cont(3) ? 4 : 0;
  if (c >= 0xf1 && c <= 0xf3) return cont(1) && cont(2) && cont(3) ? 4 : 0;
  if (c === 0xf4) return cont(1, 0x80, 0x8f) && cont(2) && cont(3) ? 4 : 0;
  return 0;
}

function scanNumber(b: Uint8Array, i: number, end: number): number {
  let j = i;
  if (b[j] === 0x2d) j++;
  // JSON number grammar first, then the text must be what JavaScript prints for the value.
  if (b[j] === 0x30) j++;
  else if (b[j]! >= 0x31 && b[j]! <= 0x39) {
    while (j < end && b[j]! >= 0x30 && b[j]! <= 0x39) {
      j++;
    }
  } else return UNSURE;
  let simple = true;
  if (b[j] === 0x2e) {
    simple = false;
    j++;
    const k = j;
    while (j < end && b[j]! >= 0x30 && b[j]! <= 0x39) j++;
    if (j === k) return UNSURE;
  }
  if (b[j] === 0x65 || b[j] === 0x45) {
    simple = false;
    j++;
    if (b[j] === 0x2b || b[j] === 0x2d) j++;
    const k = j;
    while (j < end && b[j]! >= 0x30 && b[j]! <= 0x39) j++;
    if (j === k) return UNSURE;
  }
  // Short integers print as themselves unless they are -0 or lose precision.
  if (simple && j - i < 16) return b[i] === 0x2d && b[i + 1] === 0x30 ? UNSURE : j;
  const text = String.fromCharCode(...b.subarray(i, j));
  return String(Number(text)) === text ? j : UNSURE;
}

function scanArray(b: Uint8Array, i: number, end: number): number {
  i++;
  if (b[i] === 0x5d) return i + 1;
  while (i < end) {
    i = scanValue(b, i, end);
    if (i === UNSURE) return UNSURE;
    if (b[i] === 0x5d) return i + 1;
    if (b[i] !== COMMA) return UNSURE;
    i++;
  }
  return UNSURE;
}

function scanObject(b: Uint8Array, i: number, end: number): number {
  i++;
  if (b[i] === 0x7d) return i + 1;
  let prevStart = -1;
  let prevEnd = -1;
  while (i < end) {
    const keyEnd = scanKey(b, i, end);
    if (keyEnd === UNSURE) return UNSURE;
    // Keys strictly increasing (ASCII, unescaped: byte order is UTF-16 order).
    if (prevStart >= 0 && compareBytes(b, prevStart, prevEnd, i, keyEnd) >= 0) return UNSURE;
    prevStart = i;
    prevEnd = keyEnd;
    if (b[keyEnd] !== COLON) return UNSURE;
    i = scanValue(b, keyEnd + 1, end);
    if (i === UNSURE) return UNSURE;
    if (b[i] === 0x7d) return i + 1;
    if (b[i] !== COMMA) return UNSURE;
    i++;
  }
  return UNSURE;
}

/** A key: a string of printable ASCII without escapes (anything else is left to the full check). */
function scanKey(b: Uint8Array, i: number, end: number): number {
  if (b[i] !== QUOTE) return UNSURE;
  i++;
  while (i < end) {
    const c = b[i]!;
    if (c === QUOTE) return i + 1;
    if (c < 0x20 || c >= 0x80 || c === BACKSLASH) return UNSURE;
    i++;
  }
  return UNSURE;
}

function compareBytes(b: Uint8Array, s1: number, e1: number, s2: number, e2: number): number {
  // Both ranges include their quotes; compare the contents.
  const n1 = e1 - s1 - 2;
  const n2 = e2 - s2 - 2;
  const n = Math.min(n1, n2);
  for (let k = 1; k <= n; k++) {
    const d = b[s1 + k]! - b[s2 + k]!;
    if (d !== 0) return d;
  }
  return n1 - n2;
}
