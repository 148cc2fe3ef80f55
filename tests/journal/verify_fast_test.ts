/**
 * The verifier's byte-level fast path must agree with the full check (parse, re-serialize, compare)
 * on every journal, intact or tampered, and must be the path intact journals take.
 */
import assert from "node:assert/strict";
import { createJournal } from "../../lib/journal/writer.ts";
import { GENESIS_HASH } from "../../lib/journal/event.ts";
import {
  fastLine,
  type Integrity,
  slowLine,
  verifyJournal,
  verifyJournalFile,
} from "../../lib/journal/verify.ts";
import { tempDir } from "../helpers/temp.ts";

/** The verdict by the full check alone (the definition). */
function reference(bytes: Uint8Array): Integrity {
  let prev = GENESIS_HASH;
  let checked = 0;
  let start = 0;
  while (start < bytes.length) {
    const nl = bytes.indexOf(0x0a, start);
    if (nl < 0) break;
    const hash = slowLine(bytes.subarray(start, nl), checked + 1, prev);
    if (hash === undefined) return { ok: false, checked, broken_at: checked + 1 };
    prev = hash;
    checked++;
    start = nl + 1;
  }
  return start < bytes.length
    ? { ok: false, checked, broken_at: checked + 1 }
    : { ok: true, checked, broken_at: null };
}

const PAYLOADS: Record<string, unknown>[] = [
  { text: "plain ascii" },
  { text: "accents é, CJK 漢字, emoji 🦀, RTL שלום, U+2028 \u2028 and DEL \u007f" },
  { text: 'quote " backslash \\ slash / tab \t newline \n cr \r bs \b ff \f nul \u0000 us \u001f' },
  { n: 0, neg: -12, big: 9007199254740991, float: 0.1, tiny: 5e-324, exp: 1e21, half: -1.5 },
  { nested: { z: [1, [2, [3, { y: null, x: true, w: false }]]], a: {} }, empty: [] },
  { "": "empty key", "a b": 1, "A": 2, "_": 3, "~": 4 },
  { "clé": "a non-ASCII key goes to the full check", ok: true },
  { "line\nbreak": "an escaped key goes to the full check" },
];

async function writeJournal(
  dir: string,
  name: string,
  count = PAYLOADS.length,
): Promise<string> {
  const path = `${dir}/${name}.jsonl`;
  const j = createJournal(path);
  for (let i = 0; i < count; i++) j.append(`type_${i % 3}`, PAYLOADS[i % PAYLOADS.length]!);
  await j.close();
  return path;
}

Deno.test("verifyJournal: intact journals verify, and the fast path takes every ASCII-keyed line", async () => {
  await using tmp = await tempDir();
  const bytes = await Deno.readFile(await writeJournal(tmp.path, "intact"));
  assert.deepEqual(verifyJournal(bytes), { ok: true, checked: PAYLOADS.length, broken_at: null });
  assert.deepEqual(verifyJournal(bytes), reference(bytes));
  const lines = new TextDecoder().decode(bytes).split("\n").slice(0, -1);
  let prev = GENESIS_HASH;
  lines.forEach((line, i) => {
    const b = new TextEncoder().encode(line);
    const fast = fastLine(b, i + 1, prev);
    const slow = slowLine(b, i + 1, prev);
    assert.ok(slow, `line ${i + 1} verifies`);
    const asciiKeys = i < 6;
    if (asciiKeys) assert.equal(fast, slow, `line ${i + 1} takes the fast path`);
    else assert.equal(fast, undefined, `line ${i + 1} is left to the full check`);
    prev = slow!;
  });
});

Deno.test("verifyJournal: every tampering gets the same verdict as the full check", async () => {
  await using tmp = await tempDir();
  const bytes = await Deno.readFile(await writeJournal(tmp.path, "base"));
  const text = new TextDecoder().decode(bytes);
  const enc = (s: string) => new TextEncoder().encode(s);
  const variants: Record<string, Uint8Array> = {
    "space after a colon": enc(text.replace('"text":"plain', '"text": "plain')),
    "non-canonical number": enc(text.replace('"n":0', '"n":0.0')),
    "negative zero": enc(text.replace('"n":0', '"n":-0')),
    "exponent spelled differently": enc(text.replace('"exp":1e+21', '"exp":1E21')),
    "slash escaped": enc(text.replace("slash /", "slash \\/")),
    "uppercase unicode escape": enc(text.replace("\\u001f", "\\u001F")),
    "letter escaped as unicode": enc(text.replace("plain ascii", "pl\\u0061in ascii")),
    "payload keys out of order": enc(
      text.replace('{"a":{},"z"', '{"z"').replace(
        ',"a":{}}',
        "}",
      ),
    ),
    "payload keys swapped": enc(
      text.replace('"big":9007199254740991,"exp":1e+21', '"exp":1e+21,"big":9007199254740991'),
    ),
    "duplicate key": enc(text.replace('"text":"plain ascii"', '"text":"plain ascii","text":"x"')),
    "torn last line": bytes.subarray(0, bytes.length - 5),
    "missing newline at the end": bytes.subarray(0, bytes.length - 1),
    "blank line": enc(text.replace("\n", "\n\n")),
    "line removed": enc(text.split("\n").filter((_, i) => i !== 2).join("\n")),
    "lines swapped": enc((() => {
      const l = text.split("\n");
      [l[1], l[2]] = [l[2]!, l[1]!];
      return l.join("\n");
    })()),
    "trailing space": enc(text.replace("}\n", "} \n")),
  };
  // A single changed byte anywhere in the file (every 7th position), including invalid UTF-8.
  for (let pos = 0; pos < bytes.length; pos += 7) {
    for (const value of [0x20, 0x41, 0xff]) {
      if (bytes[pos] === value) continue;
      const b = bytes.slice();
      b[pos] = value;
      variants[`byte ${pos} = ${value}`] = b;
    }
  }
  for (const [name, b] of Object.entries(variants)) {
    assert.notDeepEqual(b, bytes, `${name}: the variant differs from the journal`);
    assert.deepEqual(verifyJournal(b), reference(b), name);
  }
  // Sanity: the tamperings did break something.
  assert.equal(verifyJournal(variants["space after a colon"]!).ok, false);
  assert.equal(verifyJournal(variants["byte 70 = 65"]!).ok, false);
});

Deno.test("verifyJournalFile streams: same verdicts as in memory across chunk boundaries", async () => {
  await using tmp = await tempDir();
  // ~1.5 MB: lines cross the reader's 256 KiB chunks.
  const path = await writeJournal(tmp.path, "long", 3000);
  const bytes = await Deno.readFile(path);
  assert.ok(bytes.length > 600_000);
  assert.deepEqual(await verifyJournalFile(path), verifyJournal(bytes));
  assert.equal((await verifyJournalFile(path)).checked, 3000);
  const torn = `${tmp.path}/torn.jsonl`;
  await Deno.writeFile(torn, bytes.subarray(0, 262_144 + 100));
  assert.deepEqual(await verifyJournalFile(torn), reference(bytes.subarray(0, 262_144 + 100)));
  const changed = bytes.slice();
  changed[400_000] = changed[400_000] === 0x41 ? 0x42 : 0x41;
  await Deno.writeFile(`${tmp.path}/changed.jsonl`, changed);
  const verdict = await verifyJournalFile(`${tmp.path}/changed.jsonl`);
  assert.equal(verdict.ok, false);
  assert.deepEqual(verdict, reference(changed));
  await Deno.writeFile(`${tmp.path}/empty.jsonl`, new Uint8Array(0));
  assert.deepEqual(await verifyJournalFile(`${tmp.path}/empty.jsonl`), {
    ok: true,
    checked: 0,
    broken_at: null,
  });
});
