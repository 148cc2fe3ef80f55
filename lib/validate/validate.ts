/**
 * `validateHarness`: the full check of a harness folder (YAML, schema, cross-field rules, warnings and
 * code refs), reporting every issue without throwing for an invalid spec.
 *
 * @module
 */

import { listServerTools } from "../tools/mcp.ts";
import type { HarnessSpec } from "../harness_spec/schema.ts";
import { traceDirProblem } from "../journal/trace_dir.ts";
import { openHive } from "../hive/open.ts";
import { trustedEntryFor } from "../trust/store.ts";
import { ownerOfId } from "../harness_spec/claim.ts";
import { checkCodeRefs } from "./check_code_refs.ts";
import { checkPeers, type ConnectedPeer } from "./check_peers.ts";
import { positionOf, sortIssues, type SpecIssue } from "../harness_spec/issues.ts";
import { checkHarness, specIsValid } from "../harness_spec/load.ts";
import { evalSetIssues } from "../harness_spec/eval_sets.ts";
import { specVersion } from "../harness_spec/version.ts";

/** The result of {@link validateHarness}. */
export interface ValidationResult {
  valid: boolean;
  issues: SpecIssue[];
  /** The harness id, when the spec has one. */
  id?: string;
  /** The spec version, when the spec is valid. */
  spec_version?: string;
  /** With `connect`: the tools each MCP server offers. */
  mcp?: { server: string; tools: string[] }[];
  /** With `connect`: each remote (A2A) peer's agent card. */
  peers?: ConnectedPeer[];
}

/** Options of {@link validateHarness}. */
export interface ValidateOptions {
  /** Check code refs (default true). Code is only loaded in a trusted folder. */
  code?: boolean;
  /**
   * Connect to the MCP servers and list their tools, and fetch each remote peer's agent card
   * (`validate --connect`; never over HTTP).
   */
  connect?: boolean;
}

/**
 * Validates a harness folder: YAML, schema, cross-field rules, warnings, and its code refs (the
 * module exists, loads and exports the named function).
 *
 * @example
 * ```ts
 * const { valid, issues } = await validateHarness("./harnesses/hello");
 * ```
 * @param harnessDir The harness folder.
 * @param options Whether to check code refs.
 * @returns `{valid, issues}`.
 */
export async function validateHarness(
  harnessDir: string,
  options: ValidateOptions = {},
): Promise<ValidationResult> {
  const { dir, parsed } = await checkHarness(harnessDir);
  const issues = [...parsed.issues];
  const owner = parsed.spec ? idOwnerElsewhere(dir, parsed.spec.id) : null;
  if (owner) {
    issues.push({
      path: "id",
      severity: "warning",
      message: `Another harness folder on this machine already has the id ${
        JSON.stringify(parsed.spec!.id)
      }: this folder's runs, proposals and versions are kept apart from that one's, and the workbench lists that one; give this harness its own id (framework set <dir> id <new-id> --string)`,
      ...positionOf(parsed.doc, parsed.lineCounter, ["id"]),
    });
  }
  const traceProblem = parsed.spec && await traceDirProblem(dir, parsed.spec.logging?.trace_dir);
  if (traceProblem) {
    const path = ["logging", "trace_dir"];
    issues.push({
      path: path.join("."),
      severity: "error",
      message: `logging.trace_dir is not usable: ${traceProblem}`,
      ...positionOf(parsed.doc, parsed.lineCounter, path),
    });
  }
  /** Where a dotted path is in the file. */
  const at = (path: string) => positionOf(parsed.doc, parsed.lineCounter, segments(path));
  const sofar = { spec: parsed.spec, issues };
  if (specIsValid(sofar) && options.code !== false) {
    const trusted = !!(await trustedEntryFor(dir));
    const found = await checkCodeRefs(dir, sofar.spec, trusted);
    for (const p of found) issues.push({ ...p, ...at(p.path) });
  }
  let peers: ConnectedPeer[] | undefined;
  if (parsed.spec) {
    const checkedPeers = await checkPeers(dir, parsed.spec, options.connect === true);
    for (const p of checkedPeers.issues) issues.push({ ...p, ...at(p.path) });
    if (options.connect && checkedPeers.cards.length) peers = checkedPeers.cards;
  }
  let mcp: ValidationResult["mcp"];
  const checked = { spec: parsed.spec, issues };
  if (options.connect && specIsValid(checked) && checked.spec.mcp_servers) {
    mcp = await connectedTools(dir, checked.spec, issues, at);
  }
  // Eval sets are part of the harness: a broken one is an error like a broken field.
  issues.push(...await evalSetIssues(dir));
  const valid = specIsValid({ spec: parsed.spec, issues });
  const id = (parsed.value as { id?: unknown } | undefined)?.id;
  return {
    valid,
    issues: sortIssues(issues),
    ...(typeof id === "string" ? { id } : {}),
    ...(valid ? { spec_version: specVersion(parsed.value) } : {}),
    ...(mcp ? { mcp } : {}),
    ...(peers ? { peers } : {}),
  };
}

/** The folder that owns `id` when it is another one; a hive that cannot be read reports nothing. */
function idOwnerElsewhere(dir: string, id: string): string | null {
  try {
    return ownerOfId(openHive(), id, dir);
  } catch {
    return null;
  }
}

/** A dotted path's segments, list indexes as numbers (for YAML positions). */
function segments(path: string): (string | number)[] {
  return path.split(".").map((s) => (/^\d+$/.test(s) ? Number(s) : s));
}

/** Each MCP server's tools; a server that cannot start is an error at its entry. */
async function connectedTools(
  dir: string,
  spec: HarnessSpec,
  issues: SpecIssue[],
  at: (path: string) => { line: number; column: number } | undefined,
): Promise<{ server: string; tools: string[] }[]> {
  const listed = await listServerTools(dir, spec, !!(await trustedEntryFor(dir)));
  listed.forEach((s, i) => {
    const path = `mcp_servers.${i}`;
    if (s.error) issues.push({ path, severity: "error", message: s.error, ...at(path) });
    for (const w of s.warnings) issues.push({ path, severity: "warning", message: w, ...at(path) });
  });
  return listed.filter((s) => !s.error).map(({ server, tools }) => ({ server, tools }));
}
