/**
 * Forks (docs/runs.md, Forks): branch a run at one of its model calls into a new harness folder
 * beside the parent, resume the branch from the parent's journal, and read a run's lineage. The
 * journal is append-only and hash-chained, so a fork records the hash of the prefix it re-enters
 * from, a resume proves the prefix is unchanged before it uses it, and the replayed prefix executes
 * nothing: no model call, no tool.
 *
 * @module
 */

import { basename, dirname, join, sep } from "node:path";
import { type ForkBlock, writeForkSpec } from "../construct/fork_spec.ts";
import { recordVersion } from "../construct/mutate.ts";
import { badInput, FrameworkError, notFound } from "../errors.ts";
import { copyTreeWhole } from "../fs/copy_tree.ts";
import { within } from "../fs/safe_path.ts";
import { bindForkOrigin, getForkOrigin, recordForkOrigin } from "../hive/fork_origins.ts";
import { getHarness, type HarnessRow } from "../hive/harnesses.ts";
import type { Hive } from "../hive/open.ts";
import {
  childRuns,
  firstRunStartedAt,
  getRun,
  getRunAnyHarness,
  type RunRow,
} from "../hive/runs.ts";
import { findRun, readJournalBytes } from "../journal/trace.ts";
import { inTransaction } from "../sqlite/database.ts";
import { sensitiveName, specPath } from "../paths.ts";
import { protectedTraceDirs } from "../journal/trace_dir.ts";
import {
  type AppliedForkEdit,
  type ForkEdit,
  type Replay,
  replayFrom,
  withForkEdit,
} from "../runner/replay.ts";
import { claimHarness, folderHoldsId } from "../harness_spec/claim.ts";
import { loadSpec } from "../harness_spec/load.ts";
import { isSlug, MAX_SLUG_LENGTH, type ModelSpec, SLUG_RULE } from "../harness_spec/schema.ts";
import { trustedEntryFor, trustFolder } from "../trust/store.ts";
import { MODEL_CHOICE, namesScriptOnly } from "../harness_spec/model_choice.ts";
import * as z from "zod";
import { runtimeModel } from "./controls.ts";
import type { HarnessTarget, RunService, Submission, SubmitOptions } from "./service.ts";

const forkBody = z.strictObject({
  at: z.number().int().positive(),
  name: z.string().refine(isSlug, SLUG_RULE),
  model: MODEL_CHOICE.optional(),
  edit: z.strictObject({
    kind: z.enum(["user_message", "tool_result"]),
    replacement: z.string(),
    call_id: z.string().optional(),
  }).optional(),
});

/**
 * What a fork is asked — the model call to re-enter at (`at`), the new harness's name, optionally its
 * model and an edit of what that call was given — read by this schema on every face (the workbench's
 * `POST /api/runs/{id}/fork`, `framework fork`, the copilot's `fork_run`).
 */
export const FORK_REQUEST = {
  schema: forkBody,
  what: "fork request",
  example:
    '{"at": 6, "name": "my-fork"} (at: the seq of a model_call; model optional; edit optional: {"kind": "user_message" or "tool_result", "replacement": "…", "call_id"?})',
};

/** `framework fork`: the same schema, its flags named in the message. */
export const FORK_FLAGS = {
  schema: forkBody,
  what: "fork",
  example:
    "--at SEQ (a model_call's seq) --name NAME (a slug) [--model provider:name] [--edit-user-message TEXT | --edit-tool-result TEXT [--call-id ID]]",
};

/** A fork's request, read by {@link FORK_REQUEST}. */
export type ForkRequest = z.infer<typeof forkBody>;

/** A fork as the API answers it. */
export interface ForkResult {
  harness: { id: string; name: string; root_path: string; is_fork: true; parent_id: string };
  fork: { parent_run_id: string; at: number; reentry_seq: number; edit?: AppliedForkEdit };
}

/** Folders never copied into a fork. */
const NOT_COPIED = new Set([".git"]);

/**
 * Forks a run at one of its model calls: a new harness folder `<parent's folder>/../<name>` with a
 * copy of the parent's files (never `.framework/`, `.env*`, a trace folder — today's or a former one
 * the hive knows — `.git`, or what runs wrote in `workspace/`; a hard link refuses the fork), whose
 * `harness.yaml` has `id: <name>`, the model override and the `fork` block, registered as a fork of
 * its parent. A folder of the parent that is trusted makes a trusted fork (its code is a byte copy).
 * The copy is built beside under a temporary name and renamed into place: a failed fork, or a
 * process killed midway, leaves no folder under the name (a killed one's leftovers are swept by the
 * next fork beside it).
 *
 * @example
 * ```ts
 * import { openHive } from "../hive/open.ts";
 *
 * const { harness } = await forkRun(openHive(), "run_01…", { at: 6, name: "refunds-fr" }, "cli");
 * ```
 * @param db The hive.
 * @param runId The run to fork.
 * @param request `at`, `name`, `model`, `edit`.
 * @param actor Who forks (construction-log actor).
 * @returns The fork.
 * @throws `not_found` for an unknown run; `bad_input` for an `at` that is not one of its model calls,
 *   a name that is not a slug or a hard link in the parent; `conflict` when the name is taken or the
 *   prefix is broken.
 */
export async function forkRun(
  db: Hive,
  runId: string,
  request: ForkRequest,
  actor: string,
): Promise<ForkResult> {
  // The name becomes a folder beside the parent's: one that is not a slug ("..", "../x", "a/b")
  // would name a place elsewhere, so it is refused before anything on disk is looked at.
  if (!isSlug(request.name)) {
    throw badInput(`${SLUG_RULE}, got name ${JSON.stringify(request.name)}`, { field: "name" });
  }
  const row = findRun(db, null, runId);
  const parent = await loadSpec(row.harness_dir);
  const replay = replayFrom(await readJournalBytes(row), { run_id: row.run_id, at: request.at });
  // Checked now, so a fork is never made with an edit its resume would refuse.
  const edited = withForkEdit(replay, request.edit);
  const target = join(dirname(parent.dir), request.name);
  const taken = getHarness(db, request.name);
  // A catalogued id whose folder no longer holds it (deleted, moved) is free again, as for a claim.
  if (taken && folderHoldsId(taken.root_path, request.name)) {
    throw new FrameworkError(
      "conflict",
      `The name ${
        JSON.stringify(request.name)
      } is already the id of a harness (${taken.root_path}); choose another`,
      { field: "name" },
    );
  }
  const model = request.model === undefined ? undefined : forkModel(request.model, parent.spec);
  const traces = protectedTraceDirs(parent.dir, parent.spec.logging?.trace_dir, db);
  const ranSince = firstRunStartedAt(db, { id: parent.spec.id, dir: parent.dir });
  const workspace = join(parent.dir, "workspace");
  const fork = {
    parent: parent.spec.id,
    run_id: row.run_id,
    at: request.at,
    head: replay.parent_head,
    ...(request.edit ? { edit: forkEditBlock(request.edit, edited) } : {}),
  };
  let spec: Awaited<ReturnType<typeof writeForkSpec>> | undefined;
  try {
    await copyTreeWhole(parent.dir, target, async (e) => {
      const segments = e.relative.split(sep);
      if (segments.some((s) => sensitiveName(s) || NOT_COPIED.has(s))) return false;
      if (e.relative === basename(specPath(parent.dir))) return false; // written below
      if (traces.some((t) => within(t, e.absolute))) return false;
      // What runs wrote in workspace/ is theirs, not the harness's.
      if (!e.isDirectory && ranSince && within(workspace, e.absolute)) {
        const info = await Deno.stat(e.absolute);
        if ((info.mtime?.toISOString() ?? "") >= ranSince) return false;
      }
      return true;
    }, async (building) => {
      spec = await writeForkSpec(building, parent.text, { id: request.name, model, fork }, actor);
    });
  } catch (err) {
    if (err instanceof Deno.errors.AlreadyExists) {
      throw new FrameworkError(
        "conflict",
        `A folder named ${
          JSON.stringify(request.name)
        } already exists beside ${parent.dir}; choose another name`,
        { field: "name" },
      );
    }
    throw err;
  }
  try {
    const real = await Deno.realPath(target);
    recordVersion(real, spec!.parsed, spec!.spec_version, actor);
    // The catalog row and the record a resume checks, written together.
    const registered: HarnessRow = inTransaction(db, () => {
      recordForkOrigin(db, {
        root_path: real,
        harness_id: request.name,
        parent_id: parent.spec.id,
        run_id: row.run_id,
        at: request.at,
      });
      return claimHarness(db, {
        id: request.name,
        root_path: real,
        name: parent.spec.name ?? request.name,
        is_fork: true,
        parent_id: parent.spec.id,
      }).row;
    });
    if (await trustedEntryFor(parent.dir) && !(await trustedEntryFor(real))) {
      await trustFolder(real);
    }
    return {
      harness: {
        id: registered.id,
        name: registered.name,
        root_path: registered.root_path,
        is_fork: true,
        parent_id: parent.spec.id,
      },
      fork: {
        parent_run_id: row.run_id,
        at: request.at,
        reentry_seq: request.at,
        ...(edited.edit ? { edit: edited.edit } : {}),
      },
    };
  } catch (err) {
    await Deno.remove(target, { recursive: true }).catch(() => {});
    throw err;
  }
}

/** The edit as the fork block records it: the call it names, resolved when it was the only one. */
function forkEditBlock(edit: ForkEdit, edited: Replay): NonNullable<ForkBlock["edit"]> {
  const callId = edited.edit?.call_id;
  return { kind: edit.kind, replacement: edit.replacement, ...(callId ? { call_id: callId } : {}) };
}

/** A fork's model: a live-change model, where a scripted name alone keeps the parent's script. */
function forkModel(
  chosen: ModelSpec,
  spec: Awaited<ReturnType<typeof loadSpec>>["spec"],
): ModelSpec {
  const model = runtimeModel(chosen, spec);
  return namesScriptOnly(model) ? { ...spec.model, name: model.name } : model;
}

/**
 * Resumes a fork: a new run of the fork whose journal opens with `fork_resumed`, then holds the
 * parent's events before the re-entry point as `replayed` events (nothing of them runs again), and
 * goes on live from there with the fork's spec and model. The parent's prefix is verified first: a
 * changed parent journal refuses the resume with the broken seq. Each resume is a new run.
 *
 * @example
 * ```ts
 * import { openHive } from "../hive/open.ts";
 * import { trustGate } from "../trust/trust_gate.ts";
 * import { createRunService } from "./service.ts";
 *
 * const trusted = await trustGate("/h/refunds-fr", { approve: true });
 * const run = await resumeFork(openHive(), createRunService(), trusted);
 * console.log((await run.result).status);
 * ```
 * @param db The hive.
 * @param runs The shell's run service (trust, admission and after-run work as for any run).
 * @param fork The fork's folder, or the trust gate's proof for it.
 * @param options Run options (a pre-allocated id, a signal).
 * @returns The submitted run.
 * @throws `bad_input` for a folder that is not a fork, one that was not forked here, or whose block
 *   names another parent, run or seq than the fork was made from; `not_found` when the run is not one
 *   of that parent's runs here; `conflict` for a changed prefix.
 */
export async function resumeFork(
  db: Hive,
  runs: RunService,
  target: HarnessTarget,
  options: SubmitOptions = {},
): Promise<Submission> {
  const loaded = await loadSpec(typeof target === "string" ? target : target.dir);
  const fork = loaded.spec.fork;
  if (!fork) {
    throw badInput(
      `${loaded.dir} is not a fork: its harness.yaml has no fork block; fork a run first (framework fork <run_id> --at SEQ --name NAME)`,
    );
  }
  const parentRun = forkParentRun(db, loaded.spec.id, loaded.dir, fork);
  const replay = withForkEdit(replayFrom(await readJournalBytes(parentRun), fork), fork.edit);
  return await runs.submit(typeof target === "string" ? loaded.dir : target, {
    input: replay.input,
  }, {
    ...options,
    spec: loaded,
    replay,
    parentRunId: fork.run_id,
  });
}

/**
 * The parent run a fork may resume from, checked against the hive's record of the fork rather than
 * taken from its `harness.yaml`: the fork must have been made here, in this folder (its origin is
 * recorded when `forkRun` makes it), its block must name the parent, run and seq it was made from,
 * and the run must still be a run of that parent (its id and folder). A block written into another
 * folder, or edited to name another parent or another run, replays nothing.
 *
 * A fork made before origins were recorded and never resumed has its parent only (hive migration
 * 12): its first resume binds the run and seq its block names, when that run is its parent's.
 *
 * @param db The hive.
 * @param id The fork's id.
 * @param dir The fork's folder.
 * @param fork Its `fork` block.
 * @returns The parent run's row.
 * @throws `bad_input` when no fork was made in this folder, or the block names another parent, run or
 *   seq than the fork was made from; `not_found` when the run is not one of the parent's.
 */
function forkParentRun(
  db: Hive,
  id: string,
  dir: string,
  fork: { parent: string; run_id: string; at: number },
): RunRow {
  const again = "fork the run again (framework fork <run_id> --at SEQ --name NAME)";
  const origin = getForkOrigin(db, dir);
  if (!origin || origin.harness_id !== id) {
    throw badInput(
      `${
        JSON.stringify(id)
      } in ${dir} was not made a fork here: the hive has no record of forking ` +
        `this folder, and a fork block in harness.yaml is not one (a folder copied in, or found by a ` +
        `scan, is a plain harness); ${again}`,
      { field: "fork" },
    );
  }
  const restore = `restore the fork block as \`framework fork\` wrote it, or ${again}`;
  if (origin.parent_id !== fork.parent) {
    throw badInput(
      `The fork block of ${JSON.stringify(id)} names the parent ${
        JSON.stringify(fork.parent)
      }, but ${JSON.stringify(id)} was made a fork of ${
        JSON.stringify(origin.parent_id)
      }: a fork resumes only from its own parent's runs; ${restore}`,
      { field: "fork.parent" },
    );
  }
  const parent = getHarness(db, fork.parent);
  const run = parent && getRun(db, { id: parent.id, dir: parent.root_path }, fork.run_id);
  if (!run) {
    throw notFound(
      `Run ${JSON.stringify(fork.run_id)} is not a run of ${
        JSON.stringify(fork.parent)
      }, the parent of ${
        JSON.stringify(id)
      }: a fork resumes only from its own parent's runs; ${restore}`,
      { field: "fork.run_id", run_id: fork.run_id },
    );
  }
  if (origin.run_id === null) {
    bindForkOrigin(db, dir, fork.run_id, fork.at);
  } else if (origin.run_id !== fork.run_id || origin.at !== fork.at) {
    throw badInput(
      `The fork block of ${JSON.stringify(id)} names run ${
        JSON.stringify(fork.run_id)
      } at seq ${fork.at}, but ${JSON.stringify(id)} was made from run ${
        JSON.stringify(origin.run_id)
      } at seq ${origin.at}: a fork resumes only from where it was made; ${restore}`,
      { field: fork.run_id === origin.run_id ? "fork.at" : "fork.run_id" },
    );
  }
  return run;
}

/** A run's lineage (docs/workbench-api.md, Forks and lineage). */
export interface Lineage {
  parent: { run_id: string; harness_id: string | null; kind: "fork" | "delegation" } | null;
  children: (
    | { kind: "fork"; harness_id: string; run_id: string; reentry_seq: number }
    | { kind: "delegation"; harness_id: string; run_id: string; status: string; cost_usd: number }
  )[];
}

/**
 * The runs a run came from and led to: its parent (the run it re-entered, or delegated it), and its
 * children, forks by re-entry seq, then delegated runs grouped by harness.
 *
 * @param db The hive.
 * @param runId The run.
 * @returns The lineage.
 * @throws `not_found` for an unknown run.
 */
export function runLineage(db: Hive, runId: string): Lineage {
  const row = findRun(db, null, runId);
  const parentRow = row.parent_run_id ? getRunAnyHarness(db, row.parent_run_id) : undefined;
  const children = childRuns(db, row.run_id);
  const forks = children.filter((c) => c.reentry_seq !== null)
    .sort((a, b) => a.reentry_seq! - b.reentry_seq! || a.run_id.localeCompare(b.run_id))
    .map((c) => ({
      kind: "fork" as const,
      harness_id: c.harness_id,
      run_id: c.run_id,
      reentry_seq: c.reentry_seq!,
    }));
  const delegated = children.filter((c) => c.reentry_seq === null)
    .sort((a, b) => a.harness_id.localeCompare(b.harness_id) || a.run_id.localeCompare(b.run_id))
    .map((c) => ({
      kind: "delegation" as const,
      harness_id: c.harness_id,
      run_id: c.run_id,
      status: c.status,
      cost_usd: c.cost_usd,
    }));
  return {
    parent: row.parent_run_id
      ? {
        run_id: row.parent_run_id,
        harness_id: parentRow?.harness_id ?? null,
        kind: row.reentry_seq !== null ? "fork" : "delegation",
      }
      : null,
    children: [...forks, ...delegated],
  };
}

/**
 * A free name for a fork of a harness: `<id>-fork`, then `<id>-fork-2`, … — free as a catalogued id
 * and as a folder beside the parent.
 *
 * @param db The hive.
 * @param harness The parent's id and folder.
 * @returns The name.
 */
export async function suggestForkName(
  db: Hive,
  harness: { id: string; dir: string },
): Promise<string> {
  const base = `${harness.id.slice(0, MAX_SLUG_LENGTH - 9)}-fork`;
  for (let n = 1;; n++) {
    const name = n === 1 ? base : `${base}-${n}`;
    if (getHarness(db, name)) continue;
    try {
      await Deno.lstat(join(dirname(harness.dir), name));
    } catch {
      return name;
    }
  }
}
