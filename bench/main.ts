/**
 * `deno task bench [name…]`: runs the benchmarks (all, or those whose file name contains a given word)
 * and prints their figures and ratios.
 *
 * @module
 */

import { removeBenchTempDirs } from "./temp_dirs.ts";

const modules: Record<string, () => Promise<{ run: () => Promise<void> }>> = {
  spec_edit: () => import("./spec_edit_bench.ts"),
  runs: () => import("./runs_bench.ts"),
  journal: () => import("./journal_bench.ts"),
  journal_sha256: () => import("./journal_sha256_bench.ts"),
  stats: () => import("./stats_bench.ts"),
  auth: () => import("./auth_bench.ts"),
  control_plane: () => import("./control_plane_bench.ts"),
  memory: () => import("./memory_bench.ts"),
  workbench_pages: () => import("./workbench_pages_bench.ts"),
  waterfall: () => import("./waterfall_bench.ts"),
  controls: () => import("./controls_bench.ts"),
  approvals: () => import("./approvals_bench.ts"),
  threads: () => import("./threads_bench.ts"),
  openai: () => import("./openai_bench.ts"),
  a2a: () => import("./a2a_bench.ts"),
  forks: () => import("./forks_bench.ts"),
  evals: () => import("./evals_bench.ts"),
  mcp: () => import("./mcp_bench.ts"),
  commit: () => import("./commit_bench.ts"),
  peers: () => import("./peers_bench.ts"),
  cli: () => import("./cli_bench.ts"),
  otel: () => import("./otel_bench.ts"),
  hive_pg: () => import("./hive_pg_bench.ts"),
};

const wanted = Deno.args.length
  ? Object.keys(modules).filter((m) => Deno.args.some((a) => m.includes(a)))
  : Object.keys(modules);
console.log(
  `framework benchmarks on ${Deno.build.os}/${Deno.build.arch}, ${navigator.hardwareConcurrency} cores, Deno ${Deno.version.deno}\n`,
);
try {
  for (const name of wanted) {
    console.log(`== ${name}`);
    await settleDisk();
    await (await modules[name]!()).run();
    console.log("");
  }
} finally {
  // Every section's folders go at the end, not as each section ends (see bench/temp_dirs.ts).
  await removeBenchTempDirs();
}

/**
 * Writes back what earlier sections left in the page cache before a section starts, so that a
 * section's fsyncs do not queue behind another's writes (the stats sections seed hives of a million
 * runs). Uses the system's `sync`; where there is none, sections simply follow each other.
 */
async function settleDisk(): Promise<void> {
  if (Deno.build.os === "windows") return;
  await new Deno.Command("sync", { stdout: "null", stderr: "null" }).output().catch(() => {});
}
