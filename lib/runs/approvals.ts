/**
 * Tool approvals, the run service's side (docs/control-plane.md, Tool approvals): a request is a hive
 * row before the run waits, the run lets its slot go while it waits (at most `maxWaiting` runs of a
 * service wait; beyond that a request is denied at once, `too many runs waiting`), a decision is made
 * once — quoting the arguments' hash the person was shown, never by the key that started the run
 * unless it holds `*` — and reaches the waiting run in this process at once, in another process
 * sharing the hive within a poll. A run stopped while it waited because its process stopped ends
 * `interrupted_awaiting_approval` with its request still pending; approving it later takes the run up
 * again from its journal as a new run.
 *
 * @module
 */

import { FrameworkError } from "../errors.ts";
import {
  type ApprovalRecord,
  decidePending,
  findApproval,
  getApproval,
  insertApproval,
  setResumedRun,
} from "../hive/approvals.ts";
import type { HarnessRef } from "../hive/harnesses.ts";
import type { Hive } from "../hive/open.ts";
import { markRunInterruptedIfOrphaned } from "../hive/interrupted.ts";
import { getRunAnyHarness } from "../hive/runs.ts";
import { readJournalBytes } from "../journal/trace.ts";
import type {
  ApprovalDecision,
  ApprovalGate,
  ApprovalRequest,
  ApprovalTicket,
} from "../runner/approval_gate.ts";
import { resumeFromRequest } from "../runner/approval_resume.ts";
import { RunStop } from "../runner/run_session.ts";
import { linkSignals } from "../linked_signal.ts";
import { submitToThread } from "./threads.ts";
import { matchesToolGlob } from "../tool_glob.ts";
import type { HarnessSpec } from "../harness_spec/schema.ts";
import type { HarnessTarget, RunService, Submission, SubmitOptions } from "./service.ts";

/** How long a request waits when `approvals.timeout_s` is not set. */
export const DEFAULT_APPROVAL_TIMEOUT_S = 600;

/** How many runs of one service may wait for a person at once, unless told otherwise. */
export const DEFAULT_MAX_WAITING_RUNS = 16;

/** How often a waiting run looks for a decision made by another process. */
const DECISION_POLL_MS = 250;

/** The reason of a run stopped by its process while it waited. */
export const INTERRUPTED_AWAITING_APPROVAL = "interrupted_awaiting_approval";

/** A run's slot, as its approval gate lets it go and takes one again. */
export interface Slot {
  /** Lets the slot go (the run waits for a person). */
  yield(): void;
  /** Takes a slot again, ahead of runs not yet started. */
  reclaim(): Promise<void>;
}

/** What a run's approval gate works with. */
export interface ApprovalGateContext {
  db: Hive;
  harness: HarnessRef;
  spec: HarnessSpec;
  runId: string;
  /** Who started the run (its requests' `requested_by`). */
  startedBy: string | null;
  slot: Slot;
  /** The service's count of runs waiting, and its bound. */
  waiting: { count: number; max: number };
  /**
   * Aborted when the service starts to shut down: a run waiting then stops at once (it is not working,
   * so the grace period is not for it) and keeps its request pending.
   */
  shuttingDown: AbortSignal;
}

/** Why a request expired. */
const EXPIRED_REASON = "no one decided in time";

/** Wakes a waiting run of this process at once when its request is decided here. */
const decided = new EventTarget();

function decisionOf(r: ApprovalRecord): ApprovalDecision {
  return {
    decision: r.status as ApprovalDecision["decision"],
    by: r.decided_by ?? "framework",
    ...(r.reason !== null ? { reason: r.reason } : {}),
  };
}

/** Waits for a request's decision (this process's, another's, or the clock's). */
async function waitForDecision(
  db: Hive,
  approvalId: string,
  signal: AbortSignal,
): Promise<ApprovalDecision> {
  while (true) {
    const row = findApproval(db, approvalId);
    if (!row) throw new FrameworkError("internal", `The request ${approvalId} disappeared`);
    if (row.status !== "pending") return decisionOf(row);
    const left = Date.parse(row.expires_at) - Date.now();
    if (left <= 0) {
      const reason = EXPIRED_REASON;
      if (decidePending(db, approvalId, { status: "expired", by: "framework", reason })) {
        return { decision: "expired", by: "framework", reason };
      }
      continue; // decided meanwhile: read it again
    }
    let wake = () => {};
    const woken = new Promise<void>((resolve) => (wake = resolve));
    decided.addEventListener(approvalId, wake, { once: true });
    const timer = setTimeout(wake, Math.min(DECISION_POLL_MS, left));
    try {
      await new Promise<void>((resolve, reject) => {
        if (signal.aborted) return reject(signal.reason);
        const onAbort = () => reject(signal.reason);
        signal.addEventListener("abort", onAbort, { once: true });
        woken.then(() => {
          signal.removeEventListener("abort", onAbort);
          resolve();
        });
      });
    } finally {
      clearTimeout(timer);
      decided.removeEventListener(approvalId, wake);
    }
  }
}

/**
 * The approval gate of a run of a harness with `approvals`, or undefined for one without.
 *
 * @example
 * ```ts
 * import type { ApprovalGateContext } from "./approvals.ts";
 *
 * declare const ctx: ApprovalGateContext; // made by the run service for each run
 * const gate = createApprovalGate(ctx);
 * gate?.needs("file_write"); // true when approvals.tools names it
 * ```
 * @param ctx The run, its slot and the service's bound.
 * @returns The gate.
 */
export function createApprovalGate(ctx: ApprovalGateContext): ApprovalGate | undefined {
  const approvals = ctx.spec.approvals;
  if (!approvals) return undefined;
  const timeoutS = approvals.timeout_s ?? DEFAULT_APPROVAL_TIMEOUT_S;
  return {
    needs: (tool) => matchesToolGlob(tool, approvals.tools),
    open(request: ApprovalRequest): ApprovalTicket {
      const full = ctx.waiting.count >= ctx.waiting.max;
      const reason = `too many runs waiting (at most ${ctx.waiting.max} at once)`;
      const record = insertApproval(ctx.db, {
        run_id: ctx.runId,
        harness: ctx.harness,
        call_id: request.call_id,
        tool: request.tool,
        arguments: request.arguments,
        arguments_hash: request.arguments_hash,
        turn: request.turn,
        requested_by: ctx.startedBy,
        expires_at: new Date(Date.now() + timeoutS * 1000).toISOString(),
        ...(full ? { decided: { status: "denied" as const, by: "framework", reason } } : {}),
      });
      return {
        approval_id: record.approval_id,
        expires_at: record.expires_at,
        ...(full ? { decided: { decision: "denied" as const, by: "framework", reason } } : {}),
      };
    },
    async wait(ticket, signal) {
      ctx.slot.yield();
      ctx.waiting.count += 1;
      let decision: ApprovalDecision;
      const either = linkSignals(signal, ctx.shuttingDown);
      try {
        decision = await waitForDecision(ctx.db, ticket.approval_id, either.signal);
      } catch (err) {
        if (ctx.shuttingDown.aborted) {
          // The request stays pending: approving it later takes the run up again.
          throw new RunStop(
            "error",
            [INTERRUPTED_AWAITING_APPROVAL],
            `The process stopped while the run waited for a decision on ${ticket.approval_id}; approve it to take the run up again`,
          );
        }
        // Stopped by a person or by its time limit: the request is closed with the run.
        decidePending(ctx.db, ticket.approval_id, {
          status: "denied",
          by: "framework",
          reason: "the run was stopped while it waited",
        });
        throw err;
      } finally {
        either.dispose();
        ctx.waiting.count -= 1;
      }
      await ctx.slot.reclaim();
      return decision;
    },
  };
}

/** Who decides a request: their id, and whether they may decide their own runs' (a `*` token). */
export interface Decider {
  by: string;
  mayDecideOwn: boolean;
}

/** A decision as a face sends it. */
export interface DecisionRequest {
  decision: "approve" | "deny";
  arguments_hash: string;
  reason?: string | undefined;
}

/**
 * Decides a pending request, once. A run waiting for it goes on; a run stopped while it waited
 * (its process gone) is taken up again as a new run when the request is approved, through `runs`.
 *
 * @example
 * ```ts
 * import { openHive } from "../hive/open.ts";
 * import { createRunService } from "./service.ts";
 *
 * const harness = { id: "writer", dir: await Deno.realPath("./harnesses/writer") };
 * const { record } = await decideApproval(openHive(), createRunService(), harness.dir, harness, "apr_01…", {
 *   decision: "approve",
 *   arguments_hash: "3f2a…",
 * }, { by: "k_2", mayDecideOwn: false });
 * record.status; // "approved"
 * ```
 * @param db The hive.
 * @param runs The run service that takes a stopped run up again.
 * @param target The harness folder, or the trust gate's proof for it.
 * @param harness The harness (id and folder): another harness's request is not found.
 * @param approvalId The request.
 * @param request The decision, the hash it quotes, and why.
 * @param who Who decides.
 * @returns The request as decided, and the run that took its run up again, when one did.
 * @throws `not_found`; `conflict` when it was decided already or the hash does not match; `forbidden`
 *   for the key that started the run.
 */
export async function decideApproval(
  db: Hive,
  runs: RunService,
  target: HarnessTarget,
  harness: HarnessRef,
  approvalId: string,
  request: DecisionRequest,
  who: Decider,
): Promise<{ record: ApprovalRecord; resumed?: Submission }> {
  const record = getApproval(db, harness, approvalId);
  const taken = () =>
    new FrameworkError(
      "conflict",
      `Request ${approvalId} was already decided (${record.status}); a decision is made once`,
      { approval_id: approvalId, status: record.status },
    );
  if (record.status !== "pending") throw taken();
  if (Date.parse(record.expires_at) <= Date.now()) {
    // Past its time: it expires now (as its waiting run would have said), and nothing is decided.
    decidePending(db, approvalId, { status: "expired", by: "framework", reason: EXPIRED_REASON });
    throw new FrameworkError(
      "conflict",
      `Request ${approvalId} expired at ${record.expires_at}: nothing was decided; run the task again`,
      { approval_id: approvalId, status: "expired" },
    );
  }
  if (request.arguments_hash !== record.arguments_hash) {
    throw new FrameworkError(
      "conflict",
      `The arguments_hash sent is not the request's: decide on the arguments you were shown (GET the request again); nothing was decided`,
      { approval_id: approvalId, arguments_hash: record.arguments_hash },
    );
  }
  if (record.requested_by !== null && record.requested_by === who.by && !who.mayDecideOwn) {
    throw new FrameworkError(
      "forbidden",
      "The key that started a run cannot decide its own run's requests; ask another key (or one with *)",
      { approval_id: approvalId },
    );
  }
  const status = request.decision === "approve" ? "approved" : "denied";
  if (!decidePending(db, approvalId, { status, by: who.by, reason: request.reason ?? null })) {
    throw new FrameworkError("conflict", `Request ${approvalId} was decided meanwhile`, {
      approval_id: approvalId,
    });
  }
  decided.dispatchEvent(new Event(approvalId));
  const now = getApproval(db, harness, approvalId);
  if (status !== "approved") return { record: now };
  const resumed = await resumeStopped(db, runs, target, now);
  return { record: getApproval(db, harness, approvalId), ...(resumed ? { resumed } : {}) };
}

/** Takes up a run that stopped while it waited for an approved request (its process gone). */
async function resumeStopped(
  db: Hive,
  runs: RunService,
  target: HarnessTarget,
  record: ApprovalRecord,
  options: SubmitOptions = {},
): Promise<Submission | undefined> {
  // A run still going (here, or in a process that is still there) reads the decision itself.
  markRunInterruptedIfOrphaned(db, record.run_id);
  const run = getRunAnyHarness(db, record.run_id);
  if (!run || run.status === "running") return undefined;
  if (run.failure_signature !== `error:${INTERRUPTED_AWAITING_APPROVAL}`) return undefined;
  const resume = resumeFromRequest(await readJournalBytes(run), run.run_id, record.approval_id, {
    decision: "approved",
    by: record.decided_by ?? "framework",
    ...(record.reason !== null ? { reason: record.reason } : {}),
  });
  const resumeOptions = {
    ...options,
    resumed: resume,
    parentRunId: run.run_id,
    ...(record.requested_by !== null ? { startedBy: record.requested_by } : {}),
  };
  const request = { input: resume.input };
  let submission: Submission;
  if (run.thread_id === null) submission = await runs.submit(target, request, resumeOptions);
  else {
    // A turn of a thread goes on as a turn of it: the thread is busy while it runs.
    const harness = { id: record.harness_id, dir: run.harness_dir };
    const sent = await submitToThread(db, runs, target, harness, run.thread_id, request, {
      ...resumeOptions,
      busy: "queue",
      viewer: null,
    });
    if (sent.kind !== "run") throw new Error("unreachable: a queued turn was steered");
    submission = sent.submission;
  }
  setResumedRun(db, record.approval_id, submission.run_id);
  return submission;
}
