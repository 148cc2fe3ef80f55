/**
 * Checking a spec's code refs: the module exists inside the harness folder, loads, and exports the
 * named function. In a trusted folder the module is loaded in the sandbox; in an untrusted one nothing
 * runs, and the export is looked for in the source text instead.
 *
 * @module
 */

import { FrameworkError } from "../errors.ts";
import { resolveSafePath } from "../fs/safe_path.ts";
import { protectedTraceDirs } from "../journal/trace_dir.ts";
import { createSemaphore } from "../semaphore.ts";
import { createSandbox, type Grant, type Sandbox, splitCodeRef } from "../tools/sandbox.ts";
import { codeRefsOf, type CodeRefUse } from "../harness_spec/code_refs.ts";
import type { HarnessSpec } from "../harness_spec/schema.ts";

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
 * How many sandbox processes code-ref validation may have alive at once, in the whole process:
 * `FRAMEWORK_VALIDATE_SANDBOXES` (default 2). Validation is reachable with a read token
 * (`POST /validate`), so it must not start one process per request; further validations wait their
 * turn. Runs are bounded by their own capacity gate.
 */
export const VALIDATE_SANDBOXES = Math.max(
  1,
  Number(Deno.env.get("FRAMEWORK_VALIDATE_SANDBOXES")) || 2,
);
const sandboxPermits = createSemaphore(VALIDATE_SANDBOXES);

/** Validations in flight, by harness folder and what they check: one answer for all who ask. */
const inFlight = new Map<string, Promise<CodeRefProblem[]>>();

/**
 * Checks every code ref of a spec. In a trusted folder each module is loaded in a sandbox, one sandbox
 * at a time per validation and at most {@link VALIDATE_SANDBOXES} in the whole process; concurrent
 * checks of the same refs in the same folder share one answer.
 *
 * @example
 * ```ts
 * import { loadSpec } from "../harness_spec/load.ts";
 *
 * const { dir, spec } = await loadSpec("/h");
 * const problems = await checkCodeRefs(dir, spec, true);
 * ```
 * @param harnessDir The harness folder (absolute, symlinks resolved).
 * @param spec A schema-valid spec.
 * @param trusted Whether the folder is trusted (only then is code loaded).
 * @returns The problems.
 */
export function checkCodeRefs(
  harnessDir: string,
  spec: HarnessSpec,
  trusted: boolean,
): Promise<CodeRefProblem[]> {
  const refs = codeRefsOf(spec);
  if (!refs.length) return Promise.resolve([]);
  const traces = protectedTraceDirs(harnessDir, spec.logging?.trace_dir);
  const key = JSON.stringify([harnessDir, trusted, traces, refs]);
  const running = inFlight.get(key);
  if (running) return running;
  const check = checkRefs(harnessDir, refs, trusted, traces)
    .finally(() => inFlight.delete(key));
  inFlight.set(key, check);
  return check;
}

async function checkRefs(
  harnessDir: string,
  refs: CodeRefUse[],
  trusted: boolean,
  traces: readonly string[],
): Promise<CodeRefProblem[]> {
  const problems: CodeRefProblem[] = [];
  // Refs with the same grants share a sandbox; one sandbox lives at a time.
  const grantKey = (u: CodeRefUse) => JSON.stringify(u.permissions ?? {});
  const ordered = [...refs].sort((a, b) => grantKey(a).localeCompare(grantKey(b)));
  const release = trusted ? await sandboxPermits.acquire() : undefined;
  let box: { key: string; sandbox: Sandbox } | undefined;
  try {
    for (const use of ordered) {
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
      if (trusted) {
        if (box?.key !== grantKey(use)) {
          await box?.sandbox.close();
          box = {
            key: grantKey(use),
            sandbox: createSandbox(harnessDir, use.permissions as Grant | undefined, traces),
          };
        }
        try {
          const info = await box.sandbox.describe(use.ref, 30_000);
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
    await box?.sandbox.close();
    release?.();
  }
  // Problems in the order of the spec.
  const order = new Map(refs.map((u, i) => [u.path, i]));
  return problems.sort((a, b) => (order.get(a.path) ?? 0) - (order.get(b.path) ?? 0));
}
