/**
 * The benchmarks' temporary folders, removed once after the last section rather than by each
 * section: removing a section's folder (thousands of journals) makes creating files slow for
 * minutes afterwards on some file systems (ext4 without a journal skips every inode freed in the
 * last minutes), which would tax the next section's measurements with the previous one's cleanup.
 *
 * @module
 */

const made: string[] = [];

/**
 * Makes a temporary folder that {@link removeBenchTempDirs} removes.
 *
 * @param prefix The folder name's prefix.
 * @returns The folder.
 */
export async function benchTempDir(prefix: string): Promise<string> {
  const dir = await Deno.makeTempDir({ prefix });
  made.push(dir);
  return dir;
}

/** Removes every folder {@link benchTempDir} made (after the last section). */
export async function removeBenchTempDirs(): Promise<void> {
  for (const dir of made.splice(0)) await Deno.remove(dir, { recursive: true }).catch(() => {});
}
