/**
 * Checking a spec's code refs: the module exists inside the harness folder, loads, and exports the
 * named function. In a trusted folder the module is loaded in the sandbox; in an untrusted one nothing
 * runs, and the export is looked for in the source text instead.
 *
 * @module
 */

import { FrameworkError } from "../errors.ts";
import { resolveSafePath } from "../fs/safe_path.ts";
import { traceDir } from "../paths.ts";
import { createSandboxPool, type Grant, splitCodeRef } from "../tools/sandbox.ts";
import { codeRefsOf } from "./code_refs.ts";
import type { HarnessSpec } from "./schema.ts";

/** A problem with a code ref, before it is located in the YAML text. */
export interface CodeRefProblem {
  path: string;
  severity: "error" | "warning";
  message: string;
}

function escapeRe(s: string): string {
  return s.replace(/[.*+?^${}()|[\]\\]/g, "\\$&");
}

/** Whether source text visibly exports `name` (undefined when it cannot tell: `export *`). */
export function sourceExports(source: string, name: string): boolean | undefined {
  const n = escapeRe(name);
  const patterns = [
    new RegExp(`export\\s+(?:async\\s+)?function\\s*\\*?\\s*${n}\\b`),
    new RegExp(`export\\s+(?:const|let|var|class)\\s+${n}\\b`),
    new RegExp(`export\\s*\\{[^}]*\\b(?:as\\s+)?${n}\\b[^}]*\\}`),
  ];
  if (name === "default") patterns.push(/export\s+default\b/);
  if (patterns.some((p) => p.test(source))) return true;
  return /export\s*\*/.test(source) ? undefined : false;
}

/**
 * Checks every code ref of a spec.
 *
 * @example
 * ```ts
 * const problems = await checkCodeRefs("/h", spec, true);
 * ```
 * @param harnessDir The harness folder (absolute, symlinks resolved).
 * @param spec A schema-valid spec.
 * @param trusted Whether the folder is trusted (only then is code loaded).
 * @returns The problems.
 */
export async function checkCodeRefs(
  harnessDir: string,
  spec: HarnessSpec,
  trusted: boolean,
): Promise<CodeRefProblem[]> {
  const refs = codeRefsOf(spec);
  const problems: CodeRefProblem[] = [];
  if (!refs.length) return problems;
  const pool = trusted
    ? createSandboxPool(harnessDir, traceDir(harnessDir, spec.logging?.trace_dir))
    : undefined;
  try {
    for (const use of refs) {
      const { path, name } = splitCodeRef(use.ref);
      let absolute: string;
      try {
        absolute = (await resolveSafePath(harnessDir, path)).absolute;
      } catch (err) {
        if (!(err instanceof FrameworkError)) throw err;
        problems.push({
          path: use.path,
          severity: "error",
          message: `Code ref ${JSON.stringify(use.ref)}: ${err.message}`,
        });
        continue;
      }
      let source: string;
      try {
        source = await Deno.readTextFile(absolute);
      } catch {
        problems.push({
          path: use.path,
          severity: "error",
          message: `Module not found: ${path} (from ${JSON.stringify(use.ref)})`,
        });
        continue;
      }
      if (pool) {
        try {
          const info = await pool.for(use.permissions as Grant | undefined).describe(
            use.ref,
            30_000,
          );
          if (!info.exported) {
            problems.push({
              path: use.path,
              severity: "error",
              message: `${path} does not export ${JSON.stringify(name)}`,
            });
          } else if (info.type !== "function") {
            problems.push({
              path: use.path,
              severity: "error",
              message: `${path} exports ${JSON.stringify(name)} as ${info.type}, not a function`,
            });
          }
        } catch (err) {
          problems.push({
            path: use.path,
            severity: "error",
            message: `Cannot load ${path}: ${(err as Error).message}`,
          });
        }
        continue;
      }
      const exported = sourceExports(source, name);
      if (exported === false) {
        problems.push({
          path: use.path,
          severity: "error",
          message: `${path} does not export ${JSON.stringify(name)}`,
        });
      } else {
        problems.push({
          path: use.path,
          severity: "warning",
          message:
            `${path} was not loaded because the folder is not trusted; trust it to check that it loads`,
        });
      }
    }
  } finally {
    await pool?.close();
  }
  return problems;
}
