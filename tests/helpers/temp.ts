/**
 * Temporary folders and homes for tests. Tests run in parallel in one process, so the home is set per
 * JavaScript realm (`setFrameworkHome`), never through the shared process environment.
 *
 * @module
 */

import { closeHives } from "../../lib/hive/open.ts";
import { setFrameworkHome } from "../../lib/paths.ts";

/**
 * Creates a temporary folder (symlinks resolved).
 *
 * @param prefix Folder name prefix.
 * @returns The path and a disposer that removes it.
 */
export async function tempDir(prefix = "fw-test-"): Promise<{ path: string } & AsyncDisposable> {
  const path = await Deno.realPath(await Deno.makeTempDir({ prefix }));
  return {
    path,
    async [Symbol.asyncDispose]() {
      await Deno.remove(path, { recursive: true }).catch(() => {});
    },
  };
}

/**
 * Points this realm's framework home at a fresh temporary folder until disposed.
 *
 * @returns The home path and a disposer that restores the default and removes the folder.
 */
export async function tempHome(): Promise<{ path: string } & AsyncDisposable> {
  const dir = await tempDir("fw-home-");
  setFrameworkHome(dir.path);
  return {
    path: dir.path,
    async [Symbol.asyncDispose]() {
      closeHives();
      setFrameworkHome(undefined);
      await dir[Symbol.asyncDispose]();
    },
  };
}

/**
 * Writes files under a folder (creating parents).
 *
 * @param root The folder.
 * @param files Paths relative to it and their contents.
 */
export async function writeFiles(root: string, files: Record<string, string>): Promise<void> {
  for (const [rel, content] of Object.entries(files)) {
    const path = `${root}/${rel}`;
    await Deno.mkdir(path.slice(0, path.lastIndexOf("/")), { recursive: true });
    await Deno.writeTextFile(path, content);
  }
}
