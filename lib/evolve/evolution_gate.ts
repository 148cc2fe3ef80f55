/**
 * The evolution gate, checked when a proposal is drafted and again when it is applied: a YAML change
 * on a frozen root (by the writer's edit policy: the safety and remote roots for a proposal, every
 * frozen root when it is applied over HTTP) or on an unknown path
 * is blocked; a code change outside the harness folder, into a sensitive path or onto `harness.yaml`
 * is blocked.
 *
 * @module
 */

import { dirname, relative } from "node:path";
import { FrameworkError } from "../errors.ts";
import { resolveSafePath } from "../fs/safe_path.ts";
import { resolvePath } from "../harness_spec/dotted_path.ts";
import { type EditPolicy, frozenRootOf } from "../harness_spec/frozen.ts";

/** The verdict on one change. */
export type GateVerdict = { ok: true } | { ok: false; reason: string };

/**
 * Gates a YAML change against the current spec value.
 *
 * @param spec The parsed spec value.
 * @param change The change.
 * @param policy `proposal` (CLI, workbench) or `remote` (over HTTP).
 * @returns Whether it may be applied, and why not.
 */
export function gateYamlChange(
  spec: unknown,
  change: { path: string; op: string },
  policy: EditPolicy,
): GateVerdict {
  const frozen = frozenRootOf(change.path, policy);
  if (frozen) {
    return {
      ok: false,
      reason: `${JSON.stringify(frozen)} is a frozen safety field; proposals cannot change it`,
    };
  }
  try {
    const resolved = resolvePath(spec, change.path);
    if (change.op === "remove" && !resolved.exists) {
      return { ok: false, reason: "nothing is set there to remove" };
    }
  } catch (err) {
    if (err instanceof FrameworkError) return { ok: false, reason: err.message };
    throw err;
  }
  return { ok: true };
}

/**
 * Gates a code change's path.
 *
 * @param harnessDir The harness folder (absolute, symlinks resolved).
 * @param path The path relative to it.
 * @param traceDirs The protected trace folders (today's and the former ones).
 * @returns The verdict and, when allowed, the absolute path.
 */
export async function gateCodeChange(
  harnessDir: string,
  path: string,
  traceDirs: readonly string[],
): Promise<GateVerdict & { absolute?: string }> {
  try {
    const safe = await resolveSafePath(harnessDir, path, { traceDirs, protectSpec: true });
    // The target must be a file (or nothing yet), and every existing folder on the way a folder.
    const info = await Deno.stat(safe.absolute).catch(() => undefined);
    if (info && !info.isFile) return { ok: false, reason: `${path} is a folder, not a file` };
    for (let dir = dirname(safe.absolute); dir.length > harnessDir.length; dir = dirname(dir)) {
      const parent = await Deno.stat(dir).catch(() => undefined);
      if (parent && !parent.isDirectory) {
        return { ok: false, reason: `${path} goes through a file (${relative(harnessDir, dir)})` };
      }
    }
    return { ok: true, absolute: safe.absolute };
  } catch (err) {
    if (err instanceof FrameworkError) return { ok: false, reason: err.message };
    throw err;
  }
}
