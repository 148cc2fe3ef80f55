/**
 * The framework library: build, run, deploy and improve LLM agent harnesses. The `framework` CLI,
 * the control plane and the workbench are thin shells over these functions. The HTTP servers have
 * their own entry, `server.ts`, so importing the library does not pull in a web framework.
 *
 * @example Create a harness, change a field, run it
 * ```ts
 * import { initHarness, setField, startRun, validateHarness } from "./mod.ts";
 *
 * await initHarness("./harnesses/hello");
 * await setField("./harnesses/hello", "limits.max_turns", 6, { actor: "cli", policy: "local" });
 * const { valid } = await validateHarness("./harnesses/hello");
 * const run = await startRun("./harnesses/hello", { input: "Hi" });
 * console.log(valid, (await run.result).status);
 * ```
 *
 * @module
 */

// Errors and locations
export { FrameworkError } from "./lib/errors.ts";
export type { ErrorKind } from "./lib/errors.ts";
export { frameworkHome, setFrameworkHome } from "./lib/paths.ts";
export { FRAMEWORK_VERSION } from "./lib/version.ts";

// harness.yaml: read, check, change
export { harnessSchema } from "./lib/harness_spec/schema.ts";
export type { HarnessSpec, ModelSpec } from "./lib/harness_spec/schema.ts";
export { harnessJsonSchema } from "./lib/harness_spec/json_schema.ts";
export { loadSpec } from "./lib/harness_spec/load.ts";
export type { LoadedSpec } from "./lib/harness_spec/load.ts";
export type { SpecIssue } from "./lib/harness_spec/issues.ts";
export { validateHarness } from "./lib/validate/validate.ts";
export type { ValidationResult } from "./lib/validate/validate.ts";
export { getField } from "./lib/harness_spec/get_field.ts";
export { EDIT_POLICIES, frozenRootOf } from "./lib/harness_spec/frozen.ts";
export type { EditPolicy } from "./lib/harness_spec/frozen.ts";
export { initHarness } from "./lib/construct/init_harness.ts";
export { createHarness } from "./lib/construct/create_harness.ts";
export { setField } from "./lib/construct/set_field.ts";
export type { ChangeOptions } from "./lib/construct/set_field.ts";
export { addItem } from "./lib/construct/add_item.ts";
export { removeItem } from "./lib/construct/remove_item.ts";
export type { RemoveTarget } from "./lib/construct/remove_item.ts";
export { replaceSpecText } from "./lib/construct/replace_spec.ts";
export type { MutationResult } from "./lib/construct/mutate.ts";

// Trust
export { listTrusted, revokeTrust, trustFolder } from "./lib/trust/store.ts";
export { trustGate } from "./lib/trust/trust_gate.ts";
export type { TrustedFolder } from "./lib/trust/trust_gate.ts";

// Runs, journals, statistics
export { createRunService, startRun } from "./lib/runs/service.ts";
export type { RunService, Submission } from "./lib/runs/service.ts";
export { createRunGate } from "./lib/runs/capacity.ts";
export type { RunFrame } from "./lib/runs/frames.ts";
export type { RunHandle } from "./lib/runner/run_handle.ts";
export { RUN_STATUSES } from "./lib/run_types.ts";
export type { RunResult, RunStatus } from "./lib/run_types.ts";
export { closeHives, openHive } from "./lib/hive/open.ts";
export type { HarnessRef } from "./lib/hive/harnesses.ts";
export { listRuns } from "./lib/hive/runs.ts";
export { harnessStats } from "./lib/hive/stats.ts";
export type { HarnessStats } from "./lib/hive/stats.ts";
export { getTrace } from "./lib/journal/trace.ts";
export { verifyJournal } from "./lib/journal/verify.ts";
export type { Integrity } from "./lib/journal/verify.ts";
export { foldContext } from "./lib/journal/fold.ts";
export type { JournalEvent } from "./lib/journal/event.ts";

// Keys and tokens
export { generateKey } from "./lib/keys/key_files.ts";
export { authorizeKey, listKeys, revokeKey } from "./lib/keys/key_store.ts";
export { MAX_TTL_SECONDS, signToken } from "./lib/keys/tokens.ts";
export { authenticate } from "./lib/keys/authenticate.ts";
export type { Principal } from "./lib/keys/authenticate.ts";

// Evolution
export { proposeImprovement } from "./lib/evolve/propose.ts";
export { applyProposal, rejectProposal } from "./lib/evolve/decide.ts";
export { getProposal, listProposals } from "./lib/hive/proposals.ts";
export type { Proposal } from "./lib/hive/proposals.ts";
