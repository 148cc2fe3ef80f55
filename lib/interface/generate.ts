/**
 * `framework generate`: the harness's page written to `<harness>/interfaces/default/index.html`.
 *
 * @module
 */

import { basename, dirname, join } from "node:path";
import { FrameworkError } from "../errors.ts";
import { writeFileAtomic } from "../fs/atomic_write.ts";
import { readSafeFile, resolveSafePath } from "../fs/safe_path.ts";
import { protectedTraceDirs } from "../journal/trace_dir.ts";
import { type LoadedSpec, loadSpec } from "../harness_spec/load.ts";
import { type InterfaceInput, interfacePage } from "./page.ts";

/** Where the page is written, relative to the harness folder. */
export const INTERFACE_PATH = "interfaces/default/index.html";

/** What `generate` wrote. */
export interface GeneratedInterface {
  /** The page, relative to the harness folder. */
  path: string;
  input: InterfaceInput;
  bytes: number;
}

/**
 * Writes the harness's page.
 *
 * @example
 * ```ts
 * await generateInterface("./harnesses/summarizer", { input: "url" });
 * ```
 * @param dir The harness folder.
 * @param options The input kind (default: the `interface` block's, else text); `force` replaces an
 *   existing page.
 * @returns The path, input kind and size.
 * @throws `conflict` when a page exists and `force` is not given.
 */
export async function generateInterface(
  dir: string,
  options: { input?: InterfaceInput; force?: boolean } = {},
): Promise<GeneratedInterface> {
  const loaded = await loadSpec(dir);
  const path = join(loaded.dir, INTERFACE_PATH);
  if (!options.force) {
    try {
      await Deno.lstat(path);
      throw new FrameworkError(
        "conflict",
        `${INTERFACE_PATH} already exists in ${loaded.dir}; pass --force to replace it`,
        { path: INTERFACE_PATH },
      );
    } catch (err) {
      if (!(err instanceof Deno.errors.NotFound)) throw err;
    }
  }
  const input = options.input ?? loaded.spec.interface?.input ?? "text";
  const html = interfacePage(loaded.spec, input);
  // The folder is checked like every path (a linked `interfaces/` cannot send the page elsewhere);
  // the page's own name is replaced by the rename, whatever it was (a link to `.env` included).
  const folder = await guarded(
    () => resolveSafePath(loaded.dir, dirname(INTERFACE_PATH), safeOptions(loaded)),
  );
  await Deno.mkdir(folder.absolute, { recursive: true });
  await writeFileAtomic(join(folder.absolute, basename(INTERFACE_PATH)), html);
  return { path: INTERFACE_PATH, input, bytes: new TextEncoder().encode(html).length };
}

/**
 * The harness's page as written, or a fresh one from its spec when none was generated. The file is
 * read through the one safe-path check, as every file a face serves: a page that is a symbolic link
 * out of the folder or to a sensitive file (`/proc/self/environ`, `.env`), or a hard link, is
 * refused, never answered.
 *
 * @param dir The harness folder.
 * @returns The HTML, and whether it came from the file.
 * @throws `bad_input` for a page the check refuses, saying how to write a fresh one.
 */
export async function interfaceHtml(dir: string): Promise<{ html: string; generated: boolean }> {
  const loaded = await loadSpec(dir);
  try {
    const { bytes } = await guarded(
      () => readSafeFile(loaded.dir, INTERFACE_PATH, safeOptions(loaded)),
    );
    return { html: new TextDecoder().decode(bytes), generated: true };
  } catch (err) {
    if (!(err instanceof Deno.errors.NotFound)) throw err;
    return { html: interfacePage(loaded.spec), generated: false };
  }
}

function safeOptions(loaded: LoadedSpec) {
  return { traceDirs: protectedTraceDirs(loaded.dir, loaded.spec.logging?.trace_dir) };
}

/**
 * A refusal of the page's path, with what to do about it (no absolute path: `GET /` answers it to
 * anyone).
 */
async function guarded<T>(check: () => Promise<T>): Promise<T> {
  try {
    return await check();
  } catch (err) {
    if (!(err instanceof FrameworkError) || err.kind !== "bad_input") throw err;
    throw new FrameworkError(
      "bad_input",
      `The harness's page is refused: ${err.message}. Remove the link (${INTERFACE_PATH} or a folder on its way) and write a fresh page with framework generate <harness folder> --force`,
      err.details,
    );
  }
}

/**
 * Whether the harness's page was generated, and where it is.
 *
 * @param dir The harness folder.
 * @returns `{generated, path}`.
 */
export async function interfaceStatus(dir: string): Promise<{ generated: boolean; path: string }> {
  const loaded = await loadSpec(dir);
  try {
    await Deno.lstat(join(loaded.dir, INTERFACE_PATH));
    return { generated: true, path: INTERFACE_PATH };
  } catch {
    return { generated: false, path: INTERFACE_PATH };
  }
}
