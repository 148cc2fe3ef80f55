/**
 * The framework library: build, run, deploy and improve LLM agent harnesses. The `framework` CLI,
 * the control plane and the workbench are thin shells over these functions.
 *
 * @example Create a harness and change a field
 * ```ts
 * import { initHarness, setField, validateHarness } from "./mod.ts";
 *
 * await initHarness("./harnesses/hello");
 * await setField("./harnesses/hello", "limits.max_turns", 12, { actor: "cli", caller: "cli" });
 * const { valid, issues } = await validateHarness("./harnesses/hello");
 * ```
 *
 * @module
 */

export { asFrameworkError, EXIT_CODE, FrameworkError, HTTP_STATUS } from "./lib/errors.ts";
export type { ErrorKind } from "./lib/errors.ts";
export { errorEnvelope, okEnvelope } from "./lib/envelope.ts";
export type { ErrorEnvelope, OkEnvelope } from "./lib/envelope.ts";
export {
  frameworkHome,
  hivePath,
  setFrameworkHome,
  traceDir,
  trustStorePath,
} from "./lib/paths.ts";
export { builtinCatalog, builtinNames, BUILTINS } from "./lib/spec/builtins.ts";
export type { BuiltinInfo, EntryKind } from "./lib/spec/builtins.ts";
export { entryName, ITEM_KINDS, LIST_PATH } from "./lib/spec/entries.ts";
export type { ItemKind } from "./lib/spec/entries.ts";
export { harnessSchema, modelSchema } from "./lib/spec/schema.ts";
export type { HarnessSpec, ModelSpec } from "./lib/spec/schema.ts";
export { loadSpec, parseSpecText } from "./lib/spec/load.ts";
export type { LoadedSpec, ParsedSpecText } from "./lib/spec/load.ts";
export { formatIssue } from "./lib/spec/issues.ts";
export type { SpecIssue } from "./lib/spec/issues.ts";
export { validateHarness } from "./lib/spec/validate.ts";
export type { ValidationResult } from "./lib/spec/validate.ts";
export { getField } from "./lib/spec/get_field.ts";
export type { GetResult } from "./lib/spec/get_field.ts";
export { parseDottedPath, resolvePath } from "./lib/spec/dotted_path.ts";
export { frozenRootOf, frozenRoots, HTTP_ONLY_ROOTS, SAFETY_ROOTS } from "./lib/spec/frozen.ts";
export type { Caller } from "./lib/spec/frozen.ts";
export { specVersion } from "./lib/spec/version.ts";
export { harnessJsonSchema } from "./lib/spec/json_schema.ts";
export { appendInText, deleteInText, setInText } from "./lib/spec/yaml_edit.ts";
export { setField } from "./lib/construct/set_field.ts";
export type { ChangeOptions } from "./lib/construct/set_field.ts";
export { addItem } from "./lib/construct/add_item.ts";
export type { AddResult } from "./lib/construct/add_item.ts";
export { removeItem } from "./lib/construct/remove_item.ts";
export type { RemoveResult, RemoveTarget } from "./lib/construct/remove_item.ts";
export type { MutationResult } from "./lib/construct/mutate.ts";
export { initHarness } from "./lib/construct/init_harness.ts";
export type { InitOptions, InitResult } from "./lib/construct/init_harness.ts";
export { readConstructionLog } from "./lib/construct/construction_log.ts";
export type { ConstructionEntry } from "./lib/construct/construction_log.ts";
export { listTrusted, revokeTrust, trustFolder } from "./lib/trust/store.ts";
export { ensureTrusted } from "./lib/trust/gate.ts";
export type { TrustDecision, TrustGateOptions } from "./lib/trust/gate.ts";
export { closeHives, openHive } from "./lib/hive/open.ts";
export type { Hive } from "./lib/hive/open.ts";
export { listSpecVersions } from "./lib/hive/spec_versions.ts";
export type { SpecVersionRow } from "./lib/hive/spec_versions.ts";
export { authenticate } from "./lib/keys/authenticate.ts";
export type { AuthenticateOptions, Principal } from "./lib/keys/authenticate.ts";
export { generateKey } from "./lib/keys/key_files.ts";
export type { GeneratedKey } from "./lib/keys/key_files.ts";
export { authorizeKey, listKeys, readKeyStore, revokeKey } from "./lib/keys/key_store.ts";
export type { AuthorizedKey } from "./lib/keys/key_store.ts";
export { DEFAULT_TTL_SECONDS, MAX_TTL_SECONDS, signToken } from "./lib/keys/tokens.ts";
export type { SignedToken, SignOptions } from "./lib/keys/tokens.ts";
export { keyIdOf } from "./lib/keys/key_material.ts";
export { SCOPES } from "./lib/keys/scopes.ts";
export type { Scope } from "./lib/keys/scopes.ts";
export { startRun } from "./lib/runner/start_run.ts";
export type { RunHandle, RunInput, RunOptions } from "./lib/runner/start_run.ts";
export { RUN_STATUSES } from "./lib/runner/types.ts";
export type { RunResult, RunStatus } from "./lib/runner/types.ts";
export { runFrames } from "./lib/runner/frames.ts";
export type { RunFrame } from "./lib/runner/frames.ts";
export { parseJournal, verifyJournal } from "./lib/journal/verify.ts";
export type { Integrity } from "./lib/journal/verify.ts";
export { foldContext } from "./lib/journal/fold.ts";
export type { FoldedContext } from "./lib/journal/fold.ts";
export type { JournalEvent } from "./lib/journal/event.ts";
export { getTrace } from "./lib/journal/trace.ts";
export type { Trace } from "./lib/journal/trace.ts";
export { harnessStats } from "./lib/hive/stats.ts";
export type { HarnessStats } from "./lib/hive/stats.ts";
export { getRun, listRuns } from "./lib/hive/runs.ts";
export type { RunRow } from "./lib/hive/runs.ts";
export { resolveSafePath } from "./lib/fs/safe_path.ts";
export { proposeImprovement } from "./lib/evolve/propose.ts";
export type { ProposeOptions } from "./lib/evolve/propose.ts";
export { applyProposal, rejectProposal } from "./lib/evolve/decide.ts";
export type { ApplyChoice } from "./lib/evolve/decide.ts";
export { getProposal, listProposals, PROPOSAL_STATUSES } from "./lib/evolve/proposals_store.ts";
export type {
  CodeChange,
  Proposal,
  ProposalStatus,
  YamlChange,
} from "./lib/evolve/proposals_store.ts";
export { createControlPlane } from "./routes/control_plane.ts";
export type { ControlPlane, ControlPlaneOptions } from "./routes/control_plane.ts";
export { mountEvolutionRoutes } from "./routes/evolution_routes.ts";
export { FRAMEWORK_VERSION } from "./lib/version.ts";
