/**
 * The human gate: applying and rejecting proposals. YAML changes are applied only when asked, all
 * together as one validated construction; a code change is applied only when its id is approved, and
 * only if its file has not changed since the proposal was drafted. Everything not approved stays
 * pending. The first application counts in the harness's evolved counter.
 *
 * @module
 */

import { dirname } from "node:path";
import { parseDocument } from "yaml";
import { mutateSpec } from "../construct/mutate.ts";
import { badInput, FrameworkError } from "../errors.ts";
import { writeFileAtomic } from "../fs/atomic_write.ts";
import { type Hive, openHive } from "../hive/open.ts";
import { protectedTraceDirs } from "../journal/trace_dir.ts";
import { resolvePath } from "../harness_spec/dotted_path.ts";
import type { EditPolicy } from "../harness_spec/frozen.ts";
import { harnessRef, loadSpec } from "../harness_spec/load.ts";
import { sha256Hex } from "../hash.ts";
import { deleteInText, setInText } from "../harness_spec/yaml_edit.ts";
import { gateCodeChange, gateYamlChange } from "./evolution_gate.ts";
import {
  claimProposal,
  getProposal,
  markProposalApplied,
  type Proposal,
  releaseProposal,
  saveProposal,
} from "../hive/proposals.ts";
import type { HarnessRef } from "../hive/harnesses.ts";

/** What to apply. */
export interface ApplyChoice {
  /** Code change ids to apply; every other code change stays pending. */
  approve_code?: string[];
  /** Apply the YAML changes (all of them, as one construction). */
  apply_yaml?: boolean;
}

/** Options of {@link applyProposal} and {@link rejectProposal}. */
export interface DecideOptions {
  /** `proposal` (CLI, workbench) or `remote` (the control plane): which roots the gate freezes. */
  policy: Extract<EditPolicy, "proposal" | "remote">;
}

function isOpen(p: Proposal): boolean {
  return p.status === "queued" ||
    (p.status === "partially_applied" && p.code_changes.some((c) => c.status === "pending"));
}

function notOpen(p: Proposal): FrameworkError {
  return new FrameworkError(
    "conflict",
    `Proposal ${p.id} is ${p.status}${
      p.status === "partially_applied" ? " with no pending code changes" : ""
    }; only an open proposal can be applied or rejected`,
    { id: p.id, status: p.status },
  );
}

/**
 * Checks what a request asks to apply of a proposal.
 *
 * @throws FrameworkError `bad_input` for a malformed choice, an unknown or decided code change, or
 * nothing to apply.
 */
function checkChoice(
  proposal: Proposal,
  choice: ApplyChoice,
): { approve: string[]; applyYaml: boolean } {
  const id = proposal.id;
  const approve = choice.approve_code ?? [];
  if (!Array.isArray(approve) || approve.some((x) => typeof x !== "string")) {
    throw badInput("approve_code must be a list of change ids");
  }
  if (choice.apply_yaml !== undefined && typeof choice.apply_yaml !== "boolean") {
    throw badInput("apply_yaml must be true or false");
  }
  const applyYaml = choice.apply_yaml === true &&
    proposal.yaml_changes.some((c) => c.status === "pending");
  for (const cid of approve) {
    const change = proposal.code_changes.find((c) => c.id === cid);
    if (!change) {
      throw badInput(`Proposal ${id} has no code change ${JSON.stringify(cid)}`, { change: cid });
    }
    if (change.status !== "pending") {
      throw badInput(
        `Code change ${cid} is ${change.status}; only a pending change can be approved`,
        { change: cid },
      );
    }
  }
  if (!applyYaml && approve.length === 0) {
    throw badInput(
      "Nothing to apply: pass apply_yaml: true (YAML changes) and/or approve_code with code change ids",
    );
  }

  return { approve, applyYaml };
}

/**
 * The answer to a request that lost the race for a proposal: 409, saying what it is now.
 */
function taken(db: Hive, harness: HarnessRef, p: Proposal): FrameworkError {
  const now = getProposal(db, harness, p.id);
  if (!isOpen(now)) return notOpen(now);
  return new FrameworkError(
    "conflict",
    `Proposal ${p.id} is being decided by another request; read it again in a moment`,
    { id: p.id, status: "deciding" },
  );
}

/**
 * A harness.yaml text with YAML changes spliced in, in order (comments and layout kept), and one
 * construction-log entry per change. Pure: nothing is written (applying and measuring share it).
 *
 * @param text The harness.yaml text.
 * @param value Its parsed value.
 * @param changes The changes to apply.
 * @returns The new text and the log entries.
 */
export function applyYamlChanges(
  text: string,
  value: unknown,
  changes: readonly Pick<Proposal["yaml_changes"][number], "path" | "op" | "value">[],
): { text: string; entries: { op: "proposal"; path: string; old: unknown; new: unknown }[] } {
  const entries = [];
  for (const c of changes) {
    const resolved = resolvePath(value, c.path);
    text = c.op === "set"
      ? setInText(text, resolved.path, c.value)
      : deleteInText(text, resolved.path);
    entries.push({
      op: "proposal" as const,
      path: c.path,
      old: resolved.exists ? resolved.value : null,
      new: c.op === "set" ? c.value : null,
    });
    value = parseDocument(text).toJS();
  }
  return { text, entries };
}

/**
 * Applies a proposal through the human gate.
 *
 * @example
 * ```ts
 * await applyProposal("./h", "prop_01…", { apply_yaml: true, approve_code: ["c1"] }, {
 *   policy: "proposal",
 * });
 * ```
 * @param harnessDir The harness folder.
 * @param id The proposal id (bound to this harness: another harness's id is not found).
 * @param choice What to apply.
 * @param options The policy.
 * @returns The proposal after the decision.
 */
export async function applyProposal(
  harnessDir: string,
  id: string,
  choice: ApplyChoice,
  options: DecideOptions,
): Promise<Proposal> {
  const loaded = await loadSpec(harnessDir);
  const db = openHive();
  const proposal = getProposal(db, harnessRef(loaded), id);
  if (!isOpen(proposal)) throw notOpen(proposal);
  const { approve, applyYaml } = checkChoice(proposal, choice);
  // One decision at a time, however many requests and processes race for it.
  const ref = harnessRef(loaded);
  if (!claimProposal(db, ref, id)) throw taken(db, ref, proposal);
  try {
    // The gate again, on the harness as it is now.
    const traceDirs = protectedTraceDirs(loaded.dir, loaded.spec.logging?.trace_dir);
    const specValue = JSON.parse(JSON.stringify(loaded.spec));
    const now = () => new Date().toISOString();
    for (const c of proposal.yaml_changes) {
      if (c.status !== "pending") continue;
      const verdict = gateYamlChange(specValue, c, options.policy);
      if (!verdict.ok) Object.assign(c, { status: "blocked", reason: verdict.reason });
    }
    const toWrite: { change: Proposal["code_changes"][number]; absolute: string }[] = [];
    for (const cid of approve) {
      const change = proposal.code_changes.find((c) => c.id === cid)!;
      const verdict = await gateCodeChange(loaded.dir, change.path, traceDirs);
      if (!verdict.ok) {
        Object.assign(change, { status: "blocked", reason: verdict.reason });
        continue;
      }
      let current: string | null = null;
      try {
        current = await Deno.readTextFile(verdict.absolute!);
      } catch {
        current = null;
      }
      if ((current === null ? null : sha256Hex(current)) !== change.base_sha256) {
        throw new FrameworkError(
          "conflict",
          `${change.path} changed since proposal ${id} was drafted; the change is not merged blindly. Reject the proposal and propose again`,
          { change: cid, path: change.path },
        );
      }
      toWrite.push({ change, absolute: verdict.absolute! });
    }

    const actor = `proposal:${id}`;
    if (applyYaml) {
      const pending = proposal.yaml_changes.filter((c) => c.status === "pending");
      if (pending.length) {
        await mutateSpec(loaded.dir, {
          actor,
          op: "proposal",
          describe: `Cannot apply proposal ${id}`,
        }, (current) => {
          const { text, entries } = applyYamlChanges(current.text, current.value, pending);
          return { text, path: `proposal:${id}`, old: null, new: null, entries };
        });
        for (const c of pending) c.status = "applied";
      }
    } else {
      for (const c of proposal.yaml_changes) {
        if (c.status === "pending") Object.assign(c, { status: "skipped", reason: "not applied" });
      }
    }
    for (const { change, absolute } of toWrite) {
      await Deno.mkdir(dirname(absolute), { recursive: true });
      await writeFileAtomic(absolute, change.content);
      change.status = "applied";
    }

    const first = proposal.status === "queued";
    const anythingApplied = proposal.yaml_changes.some((c) => c.status === "applied") ||
      proposal.code_changes.some((c) => c.status === "applied");
    if (!anythingApplied) {
      // Everything chosen turned out to be blocked on the second check.
      proposal.updated_at = now();
      saveProposal(db, proposal);
      throw badInput(
        `Nothing was applied: the chosen changes are blocked now (${
          [...proposal.yaml_changes, ...proposal.code_changes].filter((c) => c.status === "blocked")
            .map((c) => c.reason).join("; ")
        })`,
      );
    }
    proposal.status = proposal.code_changes.some((c) => c.status === "pending")
      ? "partially_applied"
      : "applied";
    proposal.updated_at = now();
    proposal.decided_at = proposal.decided_at ?? now();
    saveProposal(db, proposal);
    if (first) markProposalApplied(db, proposal.id);
    return proposal;
  } catch (err) {
    releaseProposal(db, ref, id);
    throw err;
  }
}

/**
 * Rejects an open proposal with a reason; its pending changes become skipped.
 *
 * @param harnessDir The harness folder.
 * @param id The proposal id (bound to this harness).
 * @param reason Why (required).
 * @param _options The policy.
 * @returns The proposal after the decision.
 */
export async function rejectProposal(
  harnessDir: string,
  id: string,
  reason: string,
  _options: DecideOptions,
): Promise<Proposal> {
  if (typeof reason !== "string" || !reason.trim()) {
    throw badInput("A reason is required to reject a proposal");
  }
  const loaded = await loadSpec(harnessDir);
  const db = openHive();
  const ref = harnessRef(loaded);
  const proposal = getProposal(db, ref, id);
  if (!isOpen(proposal)) throw notOpen(proposal);
  if (!claimProposal(db, ref, id)) throw taken(db, ref, proposal);
  for (const c of [...proposal.yaml_changes, ...proposal.code_changes]) {
    if (c.status === "pending") Object.assign(c, { status: "skipped", reason: "rejected" });
  }
  const now = new Date().toISOString();
  Object.assign(proposal, {
    status: "rejected",
    reason: reason.trim(),
    decided_at: now,
    updated_at: now,
  });
  saveProposal(db, proposal);
  return proposal;
}
