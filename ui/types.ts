/**
 * The shapes of the workbench API's data as the pages use them. Records come from the library's own
 * types (type-only imports: nothing of the library reaches the browser bundle).
 *
 * @module
 */

import type { CatalogNode, DuplicateFolder } from "../lib/workbench/catalog.ts";
import type { Artifact, ChatMessage, Conversation } from "../lib/workbench/conversations.ts";
import type { Memory } from "../lib/workbench/memories.ts";
import type { Proposal } from "../lib/hive/proposals.ts";
import type { RunRow } from "../lib/hive/runs.ts";
import type { HarnessStats } from "../lib/hive/stats.ts";
import type { Integrity } from "../lib/journal/verify.ts";
import type { JournalEvent } from "../lib/journal/event.ts";
import type { FoldedContext } from "../lib/journal/fold.ts";
import type { SpecIssue } from "../lib/harness_spec/issues.ts";
import type { RunResult } from "../lib/run_types.ts";
import type { Control, SteeringMessage } from "../lib/runner/control_queue.ts";
import type { LiveView } from "../lib/runs/controls.ts";
import type { ThreadRecord, ThreadTurn } from "../lib/hive/threads.ts";
import type { RunsPage } from "../lib/workbench/runs.ts";
import type { ApprovalRecord } from "../lib/hive/approvals.ts";
import type { ApprovalPreview } from "../lib/runs/approval_preview.ts";
import type { WorkbenchApprovals } from "../lib/workbench/approvals.ts";
import type { TargetRun } from "../lib/workbench/chat.ts";

export type {
  ApprovalPreview,
  ApprovalRecord,
  Artifact,
  CatalogNode,
  ChatMessage,
  Control,
  Conversation,
  DuplicateFolder,
  FoldedContext,
  HarnessStats,
  Integrity,
  JournalEvent,
  LiveView,
  Memory,
  Proposal,
  RunResult,
  RunRow,
  RunsPage,
  SpecIssue,
  SteeringMessage,
  ThreadRecord,
  ThreadTurn,
  WorkbenchApprovals,
};

/** `GET /api/health`. */
export interface Health {
  copilot: { model: string; source: string } | null;
  harnesses_dir: string;
}

/** `GET /api/harnesses/{id}`. */
export interface HarnessDetail {
  id: string;
  dir: string;
  spec: Record<string, unknown> | null;
  /** The hex SHA-256 of the spec's canonical JSON; null when it does not parse. */
  spec_version: string | null;
  valid: boolean;
  trusted: boolean;
  stats: HarnessStats;
  evolved: number;
  /** Whether a newer spec version is recorded for its id in the hive (another host applied it). */
  spec_drift: boolean;
  /** That newer version, when there is one. */
  newest_spec_version?: string;
  peers: {
    peer: string;
    harness_id: string | null;
    fitness: { success_rate: number | null; runs: number };
    eligible: boolean;
    reason: string | null;
    /** A remote (A2A) peer's URL; its fitness counts this hive's hand-offs to it. */
    url?: string;
  }[];
}

/** `GET /api/harnesses/{id}/spec`. */
export interface SpecView {
  id: string;
  text: string;
  issues: SpecIssue[];
  /** Dotted roots of the frozen safety fields. */
  frozen: string[];
}

/** `GET /api/runs/{id}`. */
export interface TraceView {
  run_id: string;
  harness_id: string;
  status: RunRow["status"];
  integrity: Integrity;
  events: JournalEvent[];
  event_count: number;
  run: RunRow;
  live: boolean;
  /** A live run's mode, model and the modes it may switch to. */
  live_state: LiveView | null;
}

/** A row of the Runs list: a live run also says its mode and model. */
export type RunListRow = RunRow & { live_state?: LiveView };

/** `GET /api/threads/{id}`: a thread with its turns, oldest first. */
export type ThreadView = ThreadRecord & { runs: ThreadTurn[] };

/** `GET /api/conversations/{id}`. */
export interface ConversationView {
  conversation: Conversation;
  messages: ChatMessage[];
  artifacts: Artifact[];
  /** The copilot run of a turn still in flight (its reply is not stored yet), or null. */
  pending_run_id: string | null;
  /** The target runs the turn in flight has started. */
  turn_runs?: TargetRun[];
}
