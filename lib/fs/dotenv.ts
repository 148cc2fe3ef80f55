/**
 * Reading a harness's own `.env` file (`KEY=value` lines), for credentials. The framework reads it;
 * harness tools never can (it is a sensitive path).
 *
 * @module
 */

import { own } from "../own.ts";
import { join } from "node:path";

/**
 * Parses `.env` text: `KEY=value`, optional `export `, `#` comments, single or double quotes (double
 * quotes understand `\n`).
 *
 * @example
 * ```ts
 * parseDotEnv('export A="x\\ny"\nB=2 # note'); // { A: "x\ny", B: "2" }
 * ```
 * @param text The file's text.
 * @returns The variables.
 */
export function parseDotEnv(text: string): Record<string, string> {
  const out: Record<string, string> = {};
  for (const raw of text.split(/\r?\n/)) {
    const line = raw.trim();
    if (!line || line.startsWith("#")) continue;
    const m = /^(?:export\s+)?([A-Za-z_][A-Za-z0-9_.]*)\s*=\s*(.*)$/.exec(line);
    if (!m) continue;
    let value = m[2]!;
    if (value.startsWith('"') && value.lastIndexOf('"') > 0) {
      value = value.slice(1, value.lastIndexOf('"')).replace(/\\n/g, "\n").replace(/\\"/g, '"');
    } else if (value.startsWith("'") && value.lastIndexOf("'") > 0) {
      value = value.slice(1, value.lastIndexOf("'"));
    } else {
      value = value.replace(/\s+#.*$/, "").trim();
    }
    out[m[1]!] = value;
  }
  return out;
}

/**
 * Reads `<harness>/.env`, or nothing when there is none.
 *
 * @param harnessDir The harness folder.
 * @returns The variables.
 */
export function readHarnessDotEnv(harnessDir: string): Record<string, string> {
  try {
    return parseDotEnv(Deno.readTextFileSync(join(harnessDir, ".env")));
  } catch {
    return {};
  }
}

/**
 * A credential: the process environment first, then the harness's `.env`.
 *
 * @param name The variable name.
 * @param harnessDir The harness folder.
 * @returns The value, or undefined.
 */
export function lookupCredential(name: string, harnessDir: string): string | undefined {
  return Deno.env.get(name) || own(readHarnessDotEnv(harnessDir), name) || undefined;
}
