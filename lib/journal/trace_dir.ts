/**
 * Where a harness's journals go, checked: `logging.trace_dir` must name a folder the framework can
 * write, outside every place that is sensitive or that harness code may write. A bad value is a clear
 * `bad_input` naming the field (400 over HTTP, exit 2 in the CLI) before a run is recorded, and a
 * validation error in `validate`, never an internal error halfway through a run.
 *
 * @module
 */

import { sep } from "node:path";
import { badInput, type FrameworkError } from "../errors.ts";
import { LinkLoop, realPathOfPrefix, within } from "../fs/safe_path.ts";
import { type Hive, openHive } from "../hive/open.ts";
import { traceFoldersWithin } from "../hive/runs.ts";
import { defaultKeysDir, isEnvName, traceDir, workspaceDir } from "../paths.ts";

/**
 * What is wrong with a harness's trace folder, or undefined when it is usable. Checked: no `.env*`
 * segment (case-insensitive); not the harness folder or a folder that contains it; not inside
 * `workspace/` (harness code writes there) or the key folder of the framework home; and, where it
 * exists, a folder rather than a file. Symlinks are resolved before the containment checks.
 *
 * @example
 * ```ts
 * await traceDirProblem("/h", "harness.yaml"); // "\"harness.yaml\" is a file, not a folder"
 * ```
 * @param harnessDir The harness folder (absolute).
 * @param configured The `logging.trace_dir` value, if any.
 * @returns A sentence saying what is wrong, or undefined.
 */
export async function traceDirProblem(
  harnessDir: string,
  configured?: string,
): Promise<string | undefined> {
  if (!configured) return undefined;
  const dir = traceDir(harnessDir, configured);
  const shown = JSON.stringify(configured);
  if (dir.split(sep).some(isEnvName)) {
    return `${shown} is inside a .env path, where credentials live`;
  }
  let real: string;
  try {
    real = await realPathOfPrefix(dir);
  } catch (err) {
    if (err instanceof LinkLoop) return `${shown} goes through a symlink loop`;
    return `${shown} cannot be resolved (${describe(err)})`;
  }
  const harnessReal = await realPathOfPrefix(harnessDir);
  if (within(real, harnessReal)) {
    return `${shown} is the harness folder or contains it; use a folder of its own`;
  }
  if (within(await realPathOfPrefix(workspaceDir(harnessReal)), real)) {
    return `${shown} is inside workspace/, which harness code may write`;
  }
  if (within(await realPathOfPrefix(defaultKeysDir()), real)) {
    return `${shown} is inside the framework's key folder`;
  }
  try {
    const info = await Deno.stat(dir);
    if (!info.isDirectory) return `${shown} is a file, not a folder`;
  } catch (err) {
    if (err instanceof Deno.errors.NotADirectory) {
      return `${shown} cannot be a folder: a part of its path is a file`;
    }
    // Missing: it is created by the first run.
  }
  return undefined;
}

/** The error for an unusable trace folder: bad input on `logging.trace_dir`. */
function traceDirError(problem: string): FrameworkError {
  return badInput(
    `logging.trace_dir is not usable: ${problem}. Fix it locally (framework set <dir> logging.trace_dir …) or remove it to use .framework/traces`,
    { path: "logging.trace_dir" },
  );
}

/**
 * Resolves a harness's trace folder, or throws `bad_input` naming `logging.trace_dir` when it is not
 * usable (see {@link traceDirProblem}). Nothing is created: the first journal creates the folder, and
 * a failure there is mapped by {@link journalCreateError}.
 *
 * @param harnessDir The harness folder (absolute).
 * @param configured The `logging.trace_dir` value, if any.
 * @returns The absolute trace folder.
 */
export async function checkTraceDir(harnessDir: string, configured?: string): Promise<string> {
  const problem = await traceDirProblem(harnessDir, configured);
  if (problem) throw traceDirError(problem);
  return traceDir(harnessDir, configured);
}

/**
 * The trace folders whose files are never read in a harness folder: the one `logging.trace_dir`
 * names now (first), and every former one the hive knows inside the folder, since their journals
 * (run inputs included) are still there after the field changed. Every reader of harness files takes
 * this one list — a run (its `input_file`, file tools and code, computed once when it is prepared),
 * uploads, the evolver's code changes, the served page, copies — so a former folder is refused
 * wherever the current one is.
 *
 * @example
 * ```ts
 * protectedTraceDirs("/h", "logs"); // ["/h/logs", "/h/old-logs"]
 * ```
 * @param harnessDir The harness folder (absolute, symlinks resolved).
 * @param configured The `logging.trace_dir` value, if any.
 * @param db The hive (default: this home's).
 * @returns The folders, absolute; today's first.
 */
export function protectedTraceDirs(
  harnessDir: string,
  configured?: string,
  db: Hive = openHive(),
): string[] {
  const current = traceDir(harnessDir, configured);
  return [current, ...traceFoldersWithin(db, harnessDir).filter((f) => f !== current)];
}

/**
 * Turns a failure to create a journal file into `bad_input` on `logging.trace_dir` when the folder is
 * the cause (not writable, not a folder); other failures are returned unchanged.
 *
 * @param err The failure.
 * @param configured The `logging.trace_dir` value, if any.
 * @returns The error to throw.
 */
export function journalCreateError(err: unknown, configured?: string): unknown {
  if (
    err instanceof Deno.errors.PermissionDenied || err instanceof Deno.errors.NotADirectory ||
    err instanceof Deno.errors.NotFound
  ) {
    const where = configured ? JSON.stringify(configured) : "The default trace folder";
    return traceDirError(`${where} is not writable (${describe(err)})`);
  }
  return err;
}

function describe(err: unknown): string {
  if (err instanceof Deno.errors.PermissionDenied) return "permission denied";
  if (err instanceof Deno.errors.NotADirectory) return "a part of the path is a file";
  if (err instanceof Deno.errors.AlreadyExists) return "a file is in the way";
  if (err instanceof Deno.errors.NotFound) return "a part of the path is missing";
  return err instanceof Error ? err.name : "unknown error";
}
