/**
 * What a `file_write` call waiting for a person would change: the file's content now (read through
 * the one sensitive-path check, with the rules the tool itself writes by: a path the tool would
 * refuse is said to be refused, never read) against the content the call proposes, as a unified
 * diff. A person reads it on the request's card before deciding.
 *
 * @module
 */

import { FrameworkError } from "../errors.ts";
import { unifiedDiff } from "../evolve/unified_diff.ts";
import { readCheckedStart, resolveSafePath } from "../fs/safe_path.ts";
import { loadSpecCached } from "../harness_spec/cache.ts";
import type { ApprovalRecord } from "../hive/approvals.ts";
import { protectedTraceDirs } from "../journal/trace_dir.ts";

/** The tool whose requests have a preview. */
export const PREVIEWED_TOOL = "file_write";

/** At most this much of the current file is read. */
export const MAX_PREVIEW_BYTES = 1024 * 1024;

/** Texts longer than this (lines before and after together) are shown whole, not diffed. */
export const MAX_DIFF_LINES = 2000;

/** A `file_write` request's change. */
export interface ApprovalPreview {
  approval_id: string;
  /** The path as the call names it (relative to the harness folder), or as the check resolved it. */
  path: string;
  /** Whether a file is there now. */
  exists: boolean;
  /** The file's content now ("" for a missing or refused file). */
  before: string;
  /** The content the call would write. */
  after: string;
  /** Whether `before` was cut at {@link MAX_PREVIEW_BYTES}. */
  truncated: boolean;
  /**
   * The unified diff of `before` against `after` ("" when nothing changes), or null when the texts
   * are too long to diff ({@link MAX_DIFF_LINES}) or the path is refused.
   */
  diff: string | null;
  /** Why the tool would refuse the path (it would write nothing), or null. */
  refused: string | null;
}

function lineCount(text: string): number {
  return text.split("\n").length;
}

/** The file a `file_write` would replace, as it is now. */
interface CurrentFile {
  path: string;
  exists: boolean;
  before: string;
  truncated: boolean;
  refused: string | null;
}

/**
 * The current file a `file_write` would replace, through the one check with the tool's own rules
 * (`harness.yaml` and the trace folders refused too).
 */
async function currentFile(dir: string, path: string): Promise<CurrentFile> {
  const loaded = await loadSpecCached(dir).catch(() => undefined);
  const traceDirs = protectedTraceDirs(dir, loaded?.spec.logging?.trace_dir);
  const none = { exists: false, before: "", truncated: false };
  try {
    const safe = await resolveSafePath(dir, path, { traceDirs, protectSpec: true });
    try {
      const read = await readCheckedStart(safe.absolute, safe.relative, MAX_PREVIEW_BYTES);
      return {
        path: safe.relative,
        exists: true,
        before: new TextDecoder().decode(read.bytes),
        truncated: read.size > read.bytes.length,
        refused: null,
      };
    } catch (err) {
      if (err instanceof Deno.errors.NotFound) {
        return { path: safe.relative, ...none, refused: null };
      }
      throw err;
    }
  } catch (err) {
    if (!(err instanceof FrameworkError) || err.kind !== "bad_input") throw err;
    return { path, ...none, refused: err.message };
  }
}

/**
 * The change a `file_write` request would make, for the person deciding it: the file now, the
 * content proposed, and their diff. A missing file is an empty "before"; a path the tool would refuse
 * (outside the folder, `.framework/`, `.env*`, a trace folder, `harness.yaml`, a link) is not read
 * and says why.
 *
 * @example
 * ```ts
 * import { openHive } from "../hive/open.ts";
 * import { getApproval } from "../hive/approvals.ts";
 *
 * const harness = { id: "writer", dir: await Deno.realPath("./harnesses/writer") };
 * const preview = await approvalPreview(getApproval(openHive(), harness, "apr_01…"), harness.dir);
 * preview.diff; // "--- a/notes.txt\n+++ b/notes.txt\n@@ -1 +1 @@\n-old\n+new\n"
 * ```
 * @param record The request (of the harness in `dir`).
 * @param dir The harness folder.
 * @returns The preview.
 * @throws `bad_input` for a request of another tool than `file_write`.
 */
export async function approvalPreview(
  record: ApprovalRecord,
  dir: string,
): Promise<ApprovalPreview> {
  if (record.tool !== PREVIEWED_TOOL) {
    throw new FrameworkError(
      "bad_input",
      `Request ${record.approval_id} is a call of ${
        JSON.stringify(record.tool)
      }: only ${PREVIEWED_TOOL} requests have a preview; read its arguments instead`,
      { approval_id: record.approval_id, tool: record.tool },
    );
  }
  const { path, content } = record.arguments as { path?: unknown; content?: unknown };
  const after = typeof content === "string" ? content : "";
  if (typeof path !== "string") {
    return {
      approval_id: record.approval_id,
      path: "",
      exists: false,
      before: "",
      after,
      truncated: false,
      diff: null,
      refused: "the call names no path (the tool will refuse it)",
    };
  }
  const now = await currentFile(dir, path);
  const small = lineCount(now.before) + lineCount(after) <= MAX_DIFF_LINES;
  return {
    approval_id: record.approval_id,
    path: now.path,
    exists: now.exists,
    before: now.before,
    after,
    truncated: now.truncated,
    diff: now.refused === null && small && !now.truncated
      ? unifiedDiff(now.path, now.exists ? now.before : null, after)
      : null,
    refused: now.refused,
  };
}
