/**
 * Building the browser bundle with `deno bundle` (built into Deno): one minified ES module from
 * `ui/client.tsx`. The built file `ui/dist/client.js` is committed and embedded in the program, so a
 * compiled binary serves it without reading files; a development checkout builds it fresh.
 *
 * @module
 */

import { fileURLToPath } from "node:url";

/** The bundle's entry point. */
export const CLIENT_ENTRY = fileURLToPath(new URL("./client.tsx", import.meta.url));
/** The project's deno.json (the import map the bundle resolves with, from any folder). */
const CONFIG = fileURLToPath(new URL("../deno.json", import.meta.url));
/** Where the committed bundle lives. */
export const CLIENT_BUNDLE = fileURLToPath(new URL("./dist/client.js", import.meta.url));

/**
 * Bundles the browser code.
 *
 * @example
 * ```ts
 * const js = await buildClientBundle();
 * ```
 * @param outFile Where to write it (default: a temporary file, removed afterwards).
 * @returns The bundle's text.
 */
export async function buildClientBundle(outFile?: string): Promise<string> {
  const out = outFile ?? await Deno.makeTempFile({ prefix: "fw-client-", suffix: ".js" });
  try {
    const { code, stderr } = await new Deno.Command(Deno.execPath(), {
      args: [
        "bundle",
        "--quiet",
        "--config",
        CONFIG,
        "--platform",
        "browser",
        "--minify",
        "--output",
        out,
        CLIENT_ENTRY,
      ],
      stdout: "null",
      stderr: "piped",
    }).output();
    if (code !== 0) {
      throw new Error(`deno bundle failed:\n${new TextDecoder().decode(stderr)}`);
    }
    return await Deno.readTextFile(out);
  } finally {
    if (!outFile) await Deno.remove(out).catch(() => {});
  }
}
