/**
 * The workbench's harness catalog: the hive's `harnesses` table (root_path, is_fork, parent_id), fed
 * by `--dir`, by scanning trees (`./harnesses` always, and `--scan-dir`), and by every run. The rail
 * groups harnesses by containment — forks under their parent, a harness inside another's folder under
 * it — never by name.
 *
 * @module
 */

import { type Candidate, considerPeers } from "../runs/delegator.ts";
import { claimHarness, folderHoldsId } from "../harness_spec/claim.ts";
import { join, resolve, sep } from "node:path";
import { SPEC_FILE_NAME, specPath, STATE_DIR_NAME } from "../paths.ts";
import { badInput, notFound } from "../errors.ts";
import {
  getHarness,
  type HarnessRef,
  type HarnessRow,
  listDuplicates,
  listHarnesses,
} from "../hive/harnesses.ts";
import type { Hive } from "../hive/open.ts";
import { parseSpecText, specIsValid } from "../harness_spec/load.ts";
import { cachedSpecVersion, checkHarnessCached } from "../harness_spec/cache.ts";
import { evolvedCount } from "../hive/proposals.ts";
import { type HarnessStats, harnessStats } from "../hive/stats.ts";
import { trustedEntryFor } from "../trust/store.ts";
import { threadHarness } from "../hive/threads.ts";
import { approvalHarness } from "../hive/approvals.ts";
import { folderSpecDrift } from "../harness_spec/drift.ts";

/** The id of the bundled copilot harness (kept out of the catalog). */
export const COPILOT_ID = "workbench-copilot";

/** A catalog entry with its children. */
export interface CatalogNode {
  id: string;
  name: string;
  root_path: string;
  is_fork: boolean;
  parent_id: string | null;
  /** Whether its harness.yaml is valid right now. */
  valid: boolean;
  children: CatalogNode[];
}

const SKIP = new Set([
  "node_modules",
  ".git",
  STATE_DIR_NAME,
  `${STATE_DIR_NAME}-dev`,
  "workspace",
]);

/**
 * Registers one harness folder in the catalog (its id and name come from its harness.yaml). A `fork`
 * block in the file makes no fork: only a fork made here is one (the hive records it when the fork
 * is made), so a folder that merely says it is a fork of another harness is a plain harness in the
 * catalog, and cannot be resumed.
 *
 * @param db The hive.
 * @param dir The harness folder.
 * @returns The catalog row.
 */
export async function registerHarnessDir(db: Hive, dir: string): Promise<HarnessRow> {
  let real: string;
  try {
    real = await Deno.realPath(dir);
  } catch {
    throw badInput(`Harness folder not found: ${JSON.stringify(dir)}`);
  }
  let text: string;
  try {
    text = await Deno.readTextFile(specPath(real));
  } catch {
    throw badInput(`No harness.yaml in ${JSON.stringify(dir)}`);
  }
  const value = parseSpecText(text).value as { id?: unknown; name?: unknown } | undefined;
  if (typeof value?.id !== "string") {
    throw badInput(`The harness.yaml in ${JSON.stringify(dir)} has no id`);
  }
  return claimHarness(db, {
    id: value.id,
    root_path: real,
    name: typeof value.name === "string" ? value.name : value.id,
  }).row;
}

/**
 * Finds harness folders under a tree (a folder with a harness.yaml), to a bounded depth.
 *
 * @param root The tree.
 * @param maxDepth How deep to look.
 * @returns The folders found.
 */
export async function scanForHarnesses(root: string, maxDepth = 4): Promise<string[]> {
  const found: string[] = [];
  const walk = async (dir: string, depth: number) => {
    let entries: Deno.DirEntry[];
    try {
      entries = await Array.fromAsync(Deno.readDir(dir));
    } catch {
      return;
    }
    if (entries.some((e) => e.isFile && e.name === SPEC_FILE_NAME)) found.push(dir);
    if (depth >= maxDepth) return;
    for (const e of entries) {
      if (e.isDirectory && !SKIP.has(e.name) && !e.name.startsWith(".")) {
        await walk(join(dir, e.name), depth + 1);
      }
    }
  };
  await walk(resolve(root), 0);
  return found;
}

/**
 * Registers `--dir` folders and every harness found under the scan roots. Missing scan roots are
 * skipped; a `--dir` that is not a harness is an error.
 *
 * @param db The hive.
 * @param dirs Single harness folders.
 * @param scanDirs Trees to scan.
 * @returns The registered rows.
 */
export async function discoverHarnesses(
  db: Hive,
  dirs: string[],
  scanDirs: string[],
): Promise<HarnessRow[]> {
  const rows: HarnessRow[] = [];
  for (const d of dirs) rows.push(await registerHarnessDir(db, d));
  for (const root of scanDirs) {
    for (const d of await scanForHarnesses(root)) {
      try {
        rows.push(await registerHarnessDir(db, d));
      } catch {
        // a folder with a broken harness.yaml is skipped by the scan
      }
    }
  }
  return rows;
}

function within(parent: string, child: string): boolean {
  return child !== parent && child.startsWith(parent.endsWith(sep) ? parent : parent + sep);
}

/**
 * The catalog as a tree: forks under their parent; a harness whose folder lies inside another's under
 * that one; the rest at the top. Harnesses whose folder is gone and the copilot are left out.
 *
 * @param db The hive.
 * @returns The top-level nodes, ordered by name.
 */
export async function catalogTree(db: Hive): Promise<CatalogNode[]> {
  const rows = listHarnesses(db).filter((r) => r.id !== COPILOT_ID);
  const nodes = new Map<string, CatalogNode>();
  for (const r of rows) {
    let valid = false;
    let name = r.name;
    try {
      const { parsed } = await checkHarnessCached(r.root_path);
      valid = specIsValid(parsed);
      const current = (parsed.value as { name?: unknown } | undefined)?.name;
      if (typeof current === "string" && current) name = current;
    } catch {
      continue; // the folder is gone
    }
    nodes.set(r.id, {
      id: r.id,
      name,
      root_path: r.root_path,
      is_fork: r.is_fork,
      parent_id: r.parent_id,
      valid,
      children: [],
    });
  }
  const top: CatalogNode[] = [];
  for (const node of nodes.values()) {
    let parent = node.is_fork && node.parent_id ? nodes.get(node.parent_id) : undefined;
    if (!parent) {
      // The deepest other harness whose folder contains this one.
      for (const other of nodes.values()) {
        if (
          within(other.root_path, node.root_path) &&
          (!parent || other.root_path.length > parent.root_path.length)
        ) {
          parent = other;
        }
      }
    }
    (parent ? parent.children : top).push(node);
  }
  const sort = (list: CatalogNode[]) => {
    list.sort((a, b) => a.name.localeCompare(b.name) || a.id.localeCompare(b.id));
    for (const n of list) sort(n.children);
  };
  sort(top);
  return top;
}

/** A folder whose id is already another folder's: listed apart, never merged. */
export interface DuplicateFolder {
  id: string;
  root_path: string;
  /** The folder that holds the id in the catalog. */
  owner_path: string;
}

/**
 * Folders found with an id that another catalogued folder holds (copies that kept the id), while
 * both still hold it.
 *
 * @param db The hive.
 * @returns The duplicates.
 */
export function duplicateFolders(db: Hive): DuplicateFolder[] {
  return listDuplicates(db).filter((d) =>
    folderHoldsId(d.root_path, d.id) && getHarness(db, d.id)?.root_path === d.owner_path &&
    folderHoldsId(d.owner_path, d.id)
  ).map(({ id, root_path, owner_path }) => ({ id, root_path, owner_path }));
}

/**
 * A catalogued harness as the hive binds it (id and folder), or `not_found`.
 *
 * @param db The hive.
 * @param id The harness id.
 * @returns `{id, dir}`.
 */
export function harnessRefOf(db: Hive, id: string): HarnessRef {
  return { id, dir: harnessDirOf(db, id) };
}

/**
 * The harness a thread belongs to, when it is one of the workbench's harnesses (its id catalogued
 * at the thread's own folder): a thread of a folder the workbench does not offer — made by the CLI
 * or a control plane sharing the hive — is not found here, as an unknown one.
 *
 * @param db The hive.
 * @param threadId The thread.
 * @returns Its harness (id and folder).
 * @throws `not_found` for an unknown thread, or one of a harness the workbench does not offer.
 */
export function threadHarnessOf(db: Hive, threadId: string): HarnessRef {
  const harness = threadHarness(db, threadId);
  if (!offers(db, harness)) {
    throw notFound(`Unknown thread ${JSON.stringify(threadId)}`, { thread_id: threadId });
  }
  return harness;
}

/**
 * The harness a tool-approval request belongs to, when it is one of the workbench's harnesses (its
 * id catalogued at the request's own folder): a request of a folder the workbench does not offer —
 * a run of the CLI or of a control plane sharing the hive, in a copy that kept the id — is not
 * found here, as an unknown one.
 *
 * @param db The hive.
 * @param approvalId The request.
 * @returns Its harness (id and folder).
 * @throws `not_found` for an unknown request, or one of a harness the workbench does not offer.
 */
export function approvalHarnessOf(db: Hive, approvalId: string): HarnessRef {
  const harness = approvalHarness(db, approvalId);
  if (!offers(db, harness)) {
    throw notFound(`Unknown approval ${JSON.stringify(approvalId)}`, { approval_id: approvalId });
  }
  return harness;
}

/**
 * Whether the workbench offers a harness: its id is catalogued at that very folder, and it is not
 * the copilot. What a thread or a request is bound to (id and folder) is checked through here.
 *
 * @param db The hive.
 * @param harness The harness (id and folder).
 * @returns Whether it is one of the workbench's.
 */
export function offers(db: Hive, harness: HarnessRef): boolean {
  const row = getHarness(db, harness.id);
  return !!row && harness.id !== COPILOT_ID && row.root_path === harness.dir;
}

/**
 * The harnesses the workbench offers, as the hive binds them (id and folder): every catalogued
 * harness but the copilot.
 *
 * @param db The hive.
 * @returns Their refs.
 */
export function offeredHarnesses(db: Hive): HarnessRef[] {
  return listHarnesses(db).filter((r) => r.id !== COPILOT_ID).map((r) => ({
    id: r.id,
    dir: r.root_path,
  }));
}

/**
 * The folder of a catalogued harness, or `not_found`.
 *
 * @param db The hive.
 * @param id The harness id.
 * @returns The folder.
 */
export function harnessDirOf(db: Hive, id: string): string {
  const row = getHarness(db, id);
  if (!row || id === COPILOT_ID) {
    throw notFound(`Unknown harness ${JSON.stringify(id)}`, { harness_id: id });
  }
  return row.root_path;
}

/** A harness as the workspace shows it (`GET /api/harnesses/{id}`). */
export interface HarnessDetail {
  id: string;
  dir: string;
  /** The parsed value of its harness.yaml (even when invalid), or null when it does not parse. */
  spec: unknown;
  spec_version: string | null;
  valid: boolean;
  trusted: boolean;
  stats: HarnessStats;
  evolved: number;
  /** Whether a newer spec version is recorded for its id in the hive (several hosts, one hive). */
  spec_drift: boolean;
  /** That newer version, when there is one. */
  newest_spec_version?: string;
  /** Its delegation peers with their fitness and whether they may take a task now. */
  peers: Omit<Candidate, "dir" | "token_env">[];
}

/**
 * A catalogued harness with its spec, validity, trust, statistics and evolved counter.
 *
 * @param db The hive.
 * @param id The harness id.
 * @returns The detail, or `not_found`.
 */
export async function harnessDetail(db: Hive, id: string): Promise<HarnessDetail> {
  const ref = harnessRefOf(db, id);
  const { parsed } = await checkHarnessCached(ref.dir);
  const version = cachedSpecVersion(parsed);
  return {
    id,
    dir: ref.dir,
    spec: parsed.value ?? null,
    spec_version: version,
    valid: specIsValid(parsed),
    trusted: !!(await trustedEntryFor(ref.dir)),
    stats: harnessStats(db, ref),
    evolved: evolvedCount(db, ref),
    ...(await folderSpecDrift(db, ref.dir, id, version)),
    peers: specIsValid(parsed) && parsed.spec.delegation?.peers?.length
      ? (await considerPeers(db, parsed.spec, ref.dir, {
        depth: 0,
        chain: [id],
        remaining_usd: undefined,
      })).candidates.map(({ dir: _dir, token_env: _env, ...c }) => c)
      : [],
  };
}
