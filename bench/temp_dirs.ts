/**
 * The benchmarks' temporary folders, removed together once the whole run is over.
 *
 * Each section used to remove its folder as it ended: tens of thousands of journals at once. On
 * ext4 without a journal (this machine's disk), creating a file then skips past each inode freed in
 * the last half minute or more, at up to a millisecond of kernel time per new file (`perf` shows it
 * in `recently_deleted`), and a server under test creates one journal per run: the next section
 * measured the previous one's clean-up as much as its own subject.
 *
 * @module
 */

const made: string[] = [];

/**
 * Makes a temporary folder that stays until {@link removeBenchTempDirs}.
 *
 * @param prefix The folder name's prefix.
 * @returns Its path.
 */
export async function benchTempDir(prefix: string): Promise<string> {
  const dir = await Deno.makeTempDir({ prefix });
  made.push(dir);
  return dir;
}

/** Removes every folder made by {@link benchTempDir} (at the end of `deno task bench`). */
export async function removeBenchTempDirs(): Promise<void> {
  for (const dir of made.splice(0)) await Deno.remove(dir, { recursive: true }).catch(() => {});
}

/**
 * Runs one section as a script of its own (`deno run -A bench/evals_bench.ts`), removing its folders
 * when it ends.
 *
 * @param run The section's `run`.
 */
export async function runAlone(run: () => Promise<void>): Promise<void> {
  try {
    await run();
  } finally {
    await removeBenchTempDirs();
  }
}
