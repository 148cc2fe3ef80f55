/**
 * Whether a path exists (without following a final symlink).
 *
 * @module
 */

/**
 * Checks that something is at a path.
 *
 * @example
 * ```ts
 * await pathExists("./harness.yaml"); // true or false
 * ```
 * @param path The path.
 * @returns Whether it exists.
 */
export async function pathExists(path: string): Promise<boolean> {
  try {
    await Deno.lstat(path);
    return true;
  } catch {
    return false;
  }
}
