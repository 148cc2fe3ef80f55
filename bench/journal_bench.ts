/**
 * Journal append throughput (events/s) and `verifyJournal` throughput (MB/s), beside `sha256sum` of
 * the same bytes (the floor: hashing alone).
 *
 * @module
 */

import { verifyJournal } from "../lib/journal/verify.ts";
import { createJournal } from "../lib/journal/writer.ts";
import { fmt, report } from "./measure.ts";

/** Runs the benchmark. */
export async function run(): Promise<void> {
  const dir = await Deno.makeTempDir({ prefix: "fw-bench-journal-" });
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
  try {
    const journal = createJournal(path);
    const t0 = performance.now();
    for (let i = 0; i < n; i++) journal.append("tool_result", { ...payload, i });
    journal.close();
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
      verify_vs_sha256sum: `${fmt(shaMbS / verifyMbS, "x")} slower`,
    });
  } finally {
    await Deno.remove(dir, { recursive: true });
  }
}
