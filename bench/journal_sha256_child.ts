/**
 * One verifying process of bench/journal_sha256_bench.ts, run with an import map that decides which
 * SHA-256 lib/sha256.ts is: it times the journal's own chain check (`lineHashIs`) over lines of a few
 * sizes and `verifyJournal` of a whole journal, and counts the JavaScript heap they allocate. One
 * implementation per process, so no call site sees two (V8 would slow each down).
 *
 * `deno run -A --import-map=<map> bench/journal_sha256_child.ts '{"lines":[…],"journal":"…"}'`
 * prints `{"lines":[{bytes, us, allocated}…],"verify":{ms, allocated},"bulk_mb_s":…}` (allocated:
 * bytes per hash or per line; bulk: one 1 MiB message, where the per-message costs vanish).
 *
 * @module
 */

import process from "node:process";
import { getHeapStatistics } from "node:v8";
import { lineHashIs } from "../lib/journal/event.ts";
import { verifyJournal } from "../lib/journal/verify.ts";
import { createSha256 } from "../lib/sha256.ts";

/**
 * Bytes V8 has allocated on the JavaScript heap since the process started (Deno's node:v8 has it).
 * It moves by whole allocation buffers (tens of kB), so it is read over many thousand hashes.
 */
const allocated = () =>
  (getHeapStatistics() as { total_allocated_bytes?: number }).total_allocated_bytes ?? NaN;

/**
 * CPU time of the process in milliseconds (user and system, the collector's threads included). The
 * timings are CPU time, not wall time: on a shared machine the wall clock also counts the time other
 * processes held the core, which moved the figures by ±50 % from one round to the next.
 */
function cpuMs(): number {
  const { user, system } = process.cpuUsage();
  return (user + system) / 1000;
}

/** A canonical line and where `lineHashIs` finds its parts (as lib/journal/verify.ts does). */
interface Line {
  bytes: Uint8Array;
  prevAt: number;
  payloadEnd: number;
  tailAt: number;
}

const HASH_AT = '{"hash":"'.length;
const PAYLOAD_AT = HASH_AT + 64 + '","payload":'.length;
const PREV_KEY = new TextEncoder().encode(',"prev":"');

function lineOf(bytes: Uint8Array): Line {
  // The last `,"prev":"` of a line is its own key: inside the payload it could only be nested deeper.
  let key = bytes.length - PREV_KEY.length;
  while (key >= 0 && !PREV_KEY.every((b, k) => bytes[key + k] === b)) key--;
  return { bytes, prevAt: key + 9, payloadEnd: key, tailAt: key + 9 + 65 };
}

function check(l: Line): boolean {
  return lineHashIs(l.bytes, HASH_AT, l.prevAt, PAYLOAD_AT, l.payloadEnd, l.tailAt);
}

async function linesOf(path: string): Promise<Line[]> {
  const bytes = await Deno.readFile(path);
  const out: Line[] = [];
  for (let start = 0; start < bytes.length;) {
    const nl = bytes.indexOf(0x0a, start);
    out.push(lineOf(bytes.subarray(start, nl)));
    start = nl + 1;
  }
  return out;
}

/** The fastest of 7 blocks of ~1.5 MB of hashing after 2 unmeasured: CPU µs and heap bytes per hash. */
function timeLines(lines: Line[]): { bytes: number; us: number; allocated: number } {
  // Every line verifies, and a changed one does not, before any timing.
  if (!lines.every(check)) throw new Error("a line did not verify");
  const changed = lines[0]!.bytes.slice();
  changed[PAYLOAD_AT + 1] = changed[PAYLOAD_AT + 1]! ^ 1;
  if (check(lineOf(changed))) throw new Error("a changed line verified");
  const size = lines.reduce((s, l) => s + l.bytes.length, 0) / lines.length;
  const passes = Math.max(1, Math.round(1.5e6 / (size * lines.length)));
  let best = Infinity;
  let bytes = 0;
  for (let block = 0; block < 9; block++) {
    const a0 = allocated();
    const t0 = cpuMs();
    for (let p = 0; p < passes; p++) for (const l of lines) check(l);
    const ms = cpuMs() - t0;
    if (block < 2) continue;
    best = Math.min(best, ms);
    bytes += allocated() - a0;
  }
  const hashes = passes * lines.length;
  return { bytes: size, us: best * 1000 / hashes, allocated: bytes / (7 * hashes) };
}

/** The fastest of 7 `verifyJournal`s after 3 unmeasured: CPU ms, and heap bytes per line. */
function timeVerify(bytes: Uint8Array): { ms: number; allocated: number } {
  let best = Infinity;
  let allocatedBytes = 0;
  let lines = 0;
  for (let i = 0; i < 10; i++) {
    const a0 = allocated();
    const t = cpuMs();
    const r = verifyJournal(bytes);
    const ms = cpuMs() - t;
    if (!r.ok) throw new Error("the journal does not verify");
    if (i < 3) continue;
    best = Math.min(best, ms);
    allocatedBytes += allocated() - a0;
    lines += r.checked;
  }
  return { ms: best, allocated: allocatedBytes / lines };
}

/** The fastest of 9 hashes of one 1 MiB message after 3 unmeasured: MB/s (the compression alone). */
function timeBulk(): number {
  const sha = createSha256();
  const message = new Uint8Array(1 << 20).map((_, i) => (i * 2654435761) >>> 24);
  let best = Infinity;
  for (let i = 0; i < 12; i++) {
    const t = cpuMs();
    sha.update(message).hex();
    if (i >= 3) best = Math.min(best, cpuMs() - t);
  }
  return message.length / 1e6 / (best / 1000);
}

if (import.meta.main) {
  const { lines, journal } = JSON.parse(Deno.args[0]!) as { lines: string[]; journal: string };
  const out = {
    lines: [] as ReturnType<typeof timeLines>[],
    verify: { ms: 0, allocated: 0 },
    bulk_mb_s: timeBulk(),
  };
  for (const path of lines) out.lines.push(timeLines(await linesOf(path)));
  out.verify = timeVerify(await Deno.readFile(journal));
  console.log(JSON.stringify(out));
}
