/**
 * Journal append throughput (events/s) and `verifyJournal` throughput (MB/s), beside `sha256sum` of
 * the same bytes (the floor: hashing alone).
 *
 * @module
 */

import { verifyJournal, verifyJournalFile } from "../lib/journal/verify.ts";
import { createJournal } from "../lib/journal/writer.ts";
import { frameworkFlags } from "./server_process.ts";
import { fmt, report } from "./measure.ts";
import { benchTempDir } from "./temp_dirs.ts";

/** Runs the benchmark. */
export async function run(): Promise<void> {
  const dir = await benchTempDir("fw-bench-journal-");
  const path = `${dir}/run.jsonl`;
  const n = 50_000;
  const payload = {
    turn: 3,
    id: "call_3_1",
    name: "file_read",
    ok: true,
    content: "Order #12345 ships on Tuesday. ".repeat(8),
    duration_ms: 4,
  };
  const journal = createJournal(path);
  const t0 = performance.now();
  for (let i = 0; i < n; i++) journal.append("tool_result", { ...payload, i });
  await journal.close();
  const appendS = (performance.now() - t0) / 1000;
  const bytes = await Deno.readFile(path);
  const mb = bytes.length / 1e6;
  report(`append ${n.toLocaleString()} events (${fmt(bytes.length / n, " B")} each)`, {
    events_per_s: fmt(n / appendS),
    mb_per_s: fmt(mb / appendS),
  });

  const runs = 5;
  let best = Infinity;
  for (let i = 0; i < runs; i++) {
    const t = performance.now();
    const r = verifyJournal(bytes);
    best = Math.min(best, performance.now() - t);
    if (!r.ok) throw new Error("the benchmark journal does not verify");
  }
  const verifyMbS = mb / (best / 1000);
  report(`verifyJournal ${fmt(mb, " MB")}`, {
    mb_per_s: fmt(verifyMbS),
    events_per_s: fmt(n / (best / 1000)),
  });

  let shaBest = Infinity;
  for (let i = 0; i < runs; i++) {
    const t = performance.now();
    const out = await new Deno.Command("sha256sum", {
      args: [path],
      stdout: "null",
      stderr: "null",
    }).output();
    shaBest = Math.min(shaBest, performance.now() - t);
    if (!out.success) throw new Error("sha256sum failed");
  }
  const shaMbS = mb / (shaBest / 1000);
  report("sha256sum of the same bytes (process included)", {
    mb_per_s: fmt(shaMbS),
    verify_vs_sha256sum: `${fmt(verifyMbS / shaMbS, "x")} its speed`,
  });

  let fileBest = Infinity;
  for (let i = 0; i < runs; i++) {
    const t = performance.now();
    const r = await verifyJournalFile(path);
    fileBest = Math.min(fileBest, performance.now() - t);
    if (!r.ok) throw new Error("the benchmark journal does not verify");
  }
  const fileMbS = mb / (fileBest / 1000);
  report(`verifyJournalFile ${fmt(mb, " MB")} (streamed from disk)`, {
    mb_per_s: fmt(fileMbS),
    vs_sha256sum: `${fmt(fileMbS / shaMbS, "x")} its speed`,
  });

  // Memory of a whole process that verifies the file, against one that only loads the verifier.
  const peak = async (verify: boolean, file = path) => {
    const script = `import { verifyJournalFile } from ${
      JSON.stringify(new URL("../lib/journal/verify.ts", import.meta.url).href)
    };
      ${
      verify
        ? `const r = await verifyJournalFile(${JSON.stringify(file)}); if (!r.ok) Deno.exit(3);`
        : ""
    }
      const m = /VmHWM:\\s+(\\d+) kB/.exec(Deno.readTextFileSync("/proc/self/status"));
      console.log(m ? m[1] : "0");`;
    const out = await new Deno.Command(Deno.execPath(), {
      args: ["eval", "--quiet", ...await frameworkFlags(), script],
      stdout: "piped",
      stderr: "inherit",
    }).output();
    if (!out.success) throw new Error("the verifying process failed");
    return Number(new TextDecoder().decode(out.stdout).trim()) / 1024;
  };
  // Journals of a tenth and of five times the size: the verifier holds one line; what the peak
  // still gains with the size is native memory of per-line hash contexts not yet collected.
  const sized = async (count: number) => {
    const file = `${dir}/sized-${count}.jsonl`;
    const w = createJournal(file);
    for (let i = 0; i < count; i++) w.append("tool_result", { ...payload, i });
    await w.close();
    return file;
  };
  const idle = await peak(false);
  const figures: string[] = [];
  for (
    const [file, size] of [[await sized(n / 10), "small"], [path, "this"], [
      await sized(n * 5),
      "large",
    ]] as const
  ) {
    const fileMb = (await Deno.stat(file)).size / 1e6;
    figures.push(`${fmt(fileMb, " MB")}: +${fmt((await peak(true, file)) - idle, " MB")}`);
    if (size !== "this") await Deno.remove(file);
  }
  report("peak RSS of a process verifying a journal, over idle", {
    [`idle ${fmt(idle, " MB")}`]: figures.join(", "),
  });
}
