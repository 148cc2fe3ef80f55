/**
 * Checking a harness's delegation peers: each `harness` folder must exist and be a harness other
 * than this one (errors); an untrusted peer is a warning, since it is never started.
 *
 * @module
 */

import { resolve } from "node:path";
import { specPath } from "../paths.ts";
import type { SpecIssue } from "../harness_spec/issues.ts";
import type { HarnessSpec } from "../harness_spec/schema.ts";
import { trustedEntryFor } from "../trust/store.ts";

/**
 * The problems of the peers of a spec.
 *
 * @param dir The harness folder (absolute, symlinks resolved).
 * @param spec The spec.
 * @returns Issues at `delegation.peers.N.harness`.
 */
export async function checkPeers(dir: string, spec: HarnessSpec): Promise<SpecIssue[]> {
  const out: SpecIssue[] = [];
  for (const [i, p] of (spec.delegation?.peers ?? []).entries()) {
    const path = `delegation.peers.${i}.harness`;
    let real: string;
    try {
      real = await Deno.realPath(resolve(dir, p.harness));
    } catch {
      out.push({ path, severity: "error", message: `Peer ${p.name}: no folder at ${p.harness}` });
      continue;
    }
    if (real === dir) {
      out.push({ path, severity: "error", message: `Peer ${p.name} is this harness itself` });
      continue;
    }
    try {
      await Deno.stat(specPath(real));
    } catch {
      out.push({
        path,
        severity: "error",
        message: `Peer ${p.name}: ${p.harness} is not a harness (no harness.yaml)`,
      });
      continue;
    }
    if (!(await trustedEntryFor(real))) {
      out.push({
        path,
        severity: "warning",
        message:
          `Peer ${p.name} is not trusted, so it is never started; trust it with framework trust ${real}`,
      });
    }
  }
  return out;
}
