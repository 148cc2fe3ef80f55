/**
 * Eval code is harness code: an eval set's code checks run only in a trusted folder, in the same
 * narrow sandbox as the harness's validators, with the permissions `harness.yaml` gives the same
 * code ref under `verify.validators` and never with grants written in the eval set (the schema
 * refuses them; this module ignores any that reach it). Every face — `framework eval`, the
 * workbench's eval and measure routes, the copilot's `measure_harness` — evaluates through here.
 *
 * @module
 */

import { codeToRun } from "../harness_spec/code_refs.ts";
import type { EvalCase } from "../harness_spec/eval_set.ts";
import type { HarnessSpec } from "../harness_spec/schema.ts";
import { requireTrustFor, type TrustedFolder } from "../trust/trust_gate.ts";

type Entry = Record<string, unknown>;

/**
 * The checks of a case as validator entries: builtins as written; code checks without any grant of
 * their own, given what `harness.yaml`'s `verify.validators` grants the same code ref (else
 * nothing beyond the default sandbox).
 *
 * @example
 * ```ts
 * import { loadSpec } from "../harness_spec/load.ts";
 *
 * // harness.yaml: verify.validators: [{code: checks/tone.ts#polite, permissions: {net: [api.x]}}]
 * const { spec } = await loadSpec("./harnesses/hello");
 * evalChecks(spec, { id: "a", input: "hi", expect: [{ code: "checks/tone.ts#polite" }] });
 * // [{ code: "checks/tone.ts#polite", permissions: { net: ["api.x"] } }]
 * ```
 * @param spec The spec the case is measured with.
 * @param c The case.
 * @returns Its checks, ready for `buildValidators`.
 */
export function evalChecks(spec: HarnessSpec, c: EvalCase): Entry[] {
  const validators = (spec.verify?.validators ?? []) as Entry[];
  return (c.expect ?? []).map((raw) => {
    const { permissions: _refused, ...entry } = raw as Entry;
    if (typeof entry.code !== "string") return entry;
    const granted = validators.find((v) => v.code === entry.code)?.permissions;
    return granted ? { ...entry, permissions: granted } : entry;
  });
}

/**
 * Refuses an evaluation that would run code in a folder that is not trusted — the harness's own code
 * or one of the set's code checks — before any case runs.
 *
 * @param dir The harness folder (a copy of it lies inside it).
 * @param spec The spec measured.
 * @param set The set's name and cases.
 * @param token The trust gate's proof, when the caller holds one.
 * @throws `untrusted` naming the code and how to trust the folder.
 */
export async function requireEvalTrust(
  dir: string,
  spec: HarnessSpec,
  set: { name: string; cases: EvalCase[] },
  token?: TrustedFolder,
): Promise<void> {
  const check = set.cases.flatMap((c) => c.expect ?? [])
    .map((e) => (e as Entry).code)
    .find((code): code is string => typeof code === "string");
  const code = codeToRun(spec);
  await requireTrustFor(
    dir,
    code ?? check,
    code !== undefined
      ? `The harness ${JSON.stringify(spec.id)}`
      : `The eval set ${JSON.stringify(set.name)} of ${JSON.stringify(spec.id)}`,
    token,
  );
}
