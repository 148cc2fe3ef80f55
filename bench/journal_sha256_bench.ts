/**
 * The journal verifier's SHA-256 (`lib/sha256.ts`, written by hand) beside `@noble/hashes` (audited,
 * plain JavaScript), measured in one run for what the journal does with it: the chain check of one
 * line (`prev + "\n" + body` hashed over the line's own bytes and compared with its `hash` digits,
 * `lineHashIs`) at three line sizes, `verifyJournal` of a 10,000-event journal, the JavaScript heap
 * each allocates, one 1 MiB message (where the per-message costs vanish), and the peak memory of a
 * process streaming journals of two sizes through `verifyJournalFile` — the reason the hand-written
 * one exists (see docs/performance.md). node:crypto's `createHash`, which the verifier used before,
 * is measured beside them.
 *
 * Each implementation runs in processes of its own (bench/journal_sha256_child.ts), which get it in
 * place of lib/sha256.ts through an import map (bench/sha256_alternatives.ts): the code measured is
 * the verifier's own, and no call site sees two implementations. Times are the processes' CPU time
 * (best of 7 in each). Five rounds, the implementations interleaved in each; medians of the rounds,
 * and of the per-round ratios to the hand-written one.
 *
 * @module
 */

import { createJournal } from "../lib/journal/writer.ts";
import { fmt, report } from "./measure.ts";
import { frameworkFlags } from "./server_process.ts";
import { benchTempDir } from "./temp_dirs.ts";

/** One implementation, and what lib/sha256.ts is replaced with for it (none: itself). */
interface Impl {
  name: string;
  module?: string;
}

const IMPLS: Impl[] = [
  { name: "hand-written (lib/sha256.ts)" },
  { name: "@noble/hashes, new state per line", module: "./sha256_alternatives.ts?noble-fresh" },
  { name: "@noble/hashes, one state reset", module: "./sha256_alternatives.ts?noble-reused" },
  { name: "node:crypto createHash", module: "./sha256_alternatives.ts?node" },
];

/** What one child process measured. */
interface Figures {
  lines: { bytes: number; us: number; allocated: number }[];
  verify: { ms: number; allocated: number };
  bulk_mb_s: number;
}

const CONTENT = "Order #12345 ships on Tuesday. ".repeat(8);

/** A journal of `n` events of the journal bench's `tool_result` shape, `content` in the payload. */
async function journal(dir: string, name: string, n: number, content: string): Promise<string> {
  const path = `${dir}/${name}.jsonl`;
  const w = createJournal(path);
  for (let i = 0; i < n; i++) {
    w.append("tool_result", { turn: 3, id: "call_3_1", name: "file_read", ok: true, content, i });
  }
  await w.close();
  return path;
}

const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[xs.length >> 1]!;

/** Runs the benchmark. */
export async function run(): Promise<void> {
  const dir = await benchTempDir("fw-bench-journal-sha256-");
  const maps = await importMaps(dir);
  const sizes = [["small", ""], ["usual", CONTENT], ["large", "x".repeat(1800)]] as const;
  const lines = await Promise.all(
    sizes.map(([label, c]) => journal(dir, `lines-${label}`, 1_000, c)),
  );
  const path = await journal(dir, "verify", 10_000, CONTENT);
  const args = JSON.stringify({ lines, journal: path });

  const figures: Figures[][] = IMPLS.map(() => []);
  for (let round = 0; round < 5; round++) {
    for (let k = 0; k < IMPLS.length; k++) {
      const i = (k + round) % IMPLS.length;
      figures[i]!.push(JSON.parse(await child(maps[i]!, ["run", CHILD, args])));
    }
  }
  const ratio = (i: number, of: (f: Figures) => number) =>
    `${fmt(median(figures[i]!.map((f, r) => of(f) / of(figures[0]![r]!))), "x")} the time`;

  sizes.forEach(([label], s) => {
    const bytes = figures[0]![0]!.lines[s]!.bytes;
    report(`chain check of one ${label} line (${fmt(bytes, " B")})`, {});
    IMPLS.forEach((impl, i) => {
      const us = median(figures[i]!.map((f) => f.lines[s]!.us));
      report(`  ${impl.name}`, {
        cpu_us_per_hash: fmt(us),
        mb_per_s: fmt(bytes / us),
        vs_hand_written: ratio(i, (f) => f.lines[s]!.us),
        heap_allocated: `${fmt(median(figures[i]!.map((f) => f.lines[s]!.allocated)), " B")}/hash`,
      });
    });
  });

  const mb = (await Deno.stat(path)).size / 1e6;
  report(`verifyJournal of 10,000 events (${fmt(mb, " MB")})`, {});
  IMPLS.forEach((impl, i) => {
    const ms = median(figures[i]!.map((f) => f.verify.ms));
    report(`  ${impl.name}`, {
      cpu_ms: fmt(ms),
      mb_per_s: fmt(mb / (ms / 1000)),
      vs_hand_written: ratio(i, (f) => f.verify.ms),
      heap_allocated: `${fmt(median(figures[i]!.map((f) => f.verify.allocated)), " B")}/line`,
    });
  });

  report("one 1 MiB message (the compression alone)", {});
  IMPLS.forEach((impl, i) => {
    report(`  ${impl.name}`, {
      mb_per_s: fmt(median(figures[i]!.map((f) => f.bulk_mb_s))),
      vs_hand_written: ratio(i, (f) => 1 / f.bulk_mb_s),
    });
  });

  await peakMemory(dir, maps, path);
}

const CHILD = new URL("./journal_sha256_child.ts", import.meta.url).pathname;
const VERIFY = JSON.stringify(new URL("../lib/journal/verify.ts", import.meta.url).href);

/** An import map per implementation: the project's imports, lib/sha256.ts replaced. */
async function importMaps(dir: string): Promise<string[]> {
  const config = JSON.parse(await Deno.readTextFile(new URL("../deno.json", import.meta.url)));
  const target = new URL("../lib/sha256.ts", import.meta.url).href;
  return await Promise.all(IMPLS.map(async (impl, i) => {
    const imports = { ...config.imports };
    if (impl.module) imports[target] = new URL(impl.module, import.meta.url).href;
    const file = `${dir}/import_map_${i}.json`;
    await Deno.writeTextFile(file, JSON.stringify({ imports }));
    return file;
  }));
}

/** Runs `deno <verb> … ` with the framework's V8 flags and an import map; its stdout. */
async function child(importMap: string, [verb, ...rest]: string[]): Promise<string> {
  const out = await new Deno.Command(Deno.execPath(), {
    args: [verb!, "--quiet", "-A", `--import-map=${importMap}`, ...await frameworkFlags(), ...rest],
    stdout: "piped",
    stderr: "inherit",
  }).output();
  if (!out.success) throw new Error("a verifying process failed");
  return new TextDecoder().decode(out.stdout).trim();
}

/**
 * Peak resident memory of a process streaming a journal through `verifyJournalFile`, over the same
 * process that only loaded the verifier, per implementation, for journals of 10,000 and 100,000
 * events (the median of 3 processes each).
 */
async function peakMemory(dir: string, maps: string[], small: string): Promise<void> {
  const files = [small, await journal(dir, "peak-100k", 100_000, CONTENT)];
  const peak = async (map: string, file?: string) => {
    const verify = file
      ? `if (!(await verifyJournalFile(${JSON.stringify(file)})).ok) Deno.exit(3);`
      : "";
    const script = `import { verifyJournalFile } from ${VERIFY}; ${verify}
      const m = /VmHWM:\\s+(\\d+) kB/.exec(Deno.readTextFileSync("/proc/self/status"));
      console.log(m ? m[1] : "0");`;
    return Number(await child(map, ["eval", script])) / 1024;
  };
  const sizes = await Promise.all(files.map(async (f) => (await Deno.stat(f)).size / 1e6));
  report("peak RSS of a process verifying a journal, over idle", {});
  for (let i = 0; i < IMPLS.length; i++) {
    const three = async (file?: string) => {
      const runs: number[] = [];
      for (let r = 0; r < 3; r++) runs.push(await peak(maps[i]!, file));
      return median(runs);
    };
    const idle = await three();
    const grown: string[] = [];
    for (let f = 0; f < files.length; f++) {
      grown.push(`${fmt(sizes[f]!, " MB")}: +${fmt((await three(files[f])) - idle, " MB")}`);
    }
    report(`  ${IMPLS[i]!.name} (idle ${fmt(idle, " MB")})`, { grown: grown.join(", ") });
  }
}
