/**
 * The end of a run that answered: every validator checks the final output (`verify` events), and a
 * failing one fails the run (`verify_failed`, the first failing validator as the reason).
 *
 * @module
 */

import { type RunSession, RunStop } from "./run_session.ts";

/**
 * Checks the final output with every validator, in order.
 *
 * @example
 * ```ts
 * import type { RunSession } from "./run_session.ts";
 *
 * declare const session: RunSession;
 * await verifyOutput(session); // throws RunStop("verify_failed", …) when a validator fails
 * ```
 * @param session The run.
 * @throws `RunStop` (`verify_failed`) naming the failing validators.
 */
export async function verifyOutput(session: RunSession): Promise<void> {
  const failed = [];
  for (const v of session.equipment.validators) {
    const verdict = await v.validate(session.output);
    session.emit("verify", {
      name: v.name,
      kind: v.kind,
      ok: verdict.ok,
      ...(verdict.reason ? { reason: verdict.reason } : {}),
    });
    if (!verdict.ok) failed.push({ validator: v, verdict });
  }
  if (!failed.length) return;
  const first = failed[0]!.validator;
  throw new RunStop(
    "verify_failed",
    first.name === first.kind ? [first.kind] : [first.kind, first.name],
    failed.map((f) => `${f.validator.name}: ${f.verdict.reason}`).join("; "),
  );
}
