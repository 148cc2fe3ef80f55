/**
 * `framework generate`: the harness's page written to `<harness>/interfaces/default/index.html`.
 *
 * @module
 */

import { dirname, join } from "node:path";
import { FrameworkError } from "../errors.ts";
import { writeFileAtomic } from "../fs/atomic_write.ts";
import { loadSpec } from "../spec/load.ts";
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
  await Deno.mkdir(dirname(path), { recursive: true });
  await writeFileAtomic(path, html);
  return { path: INTERFACE_PATH, input, bytes: new TextEncoder().encode(html).length };
}

/**
 * The harness's page as written, or a fresh one from its spec when none was generated.
 *
 * @param dir The harness folder.
 * @returns The HTML, and whether it came from the file.
 */
export async function interfaceHtml(dir: string): Promise<{ html: string; generated: boolean }> {
  const loaded = await loadSpec(dir);
  try {
    return { html: await Deno.readTextFile(join(loaded.dir, INTERFACE_PATH)), generated: true };
  } catch (err) {
    if (!(err instanceof Deno.errors.NotFound)) throw err;
    return { html: interfacePage(loaded.spec), generated: false };
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
