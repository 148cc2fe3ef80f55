/**
 * The API paths the pages read, built in one place so the server prefetches exactly the paths the
 * islands ask for (and hydration finds them in the cache).
 *
 * @module
 */

import type { Route } from "./route.ts";

const e = encodeURIComponent;

function withQuery(path: string, query: Record<string, string | number | undefined | null>) {
  const q = new URLSearchParams();
  for (const [k, v] of Object.entries(query)) {
    if (v !== undefined && v !== null && v !== "") q.set(k, String(v));
  }
  const s = q.toString();
  return s ? `${path}?${s}` : path;
}

/** Runs per page of the Runs tab. */
export const RUNS_PAGE = 25;
/** Events of a trace's first page (rendered by the server, shown at once). */
export const TRACE_PREVIEW = 60;
/** Events per page when the browser loads the rest of a long trace. */
export const TRACE_PAGE = 5000;

/** API paths by what they read. */
export const paths = {
  health: () => "/api/health",
  catalog: () => "/api/harnesses",
  conversations: () => "/api/conversations",
  chatCommands: () => "/api/chat/commands",
  conversation: (id: string) => `/api/conversations/${e(id)}`,
  harness: (id: string) => `/api/harnesses/${e(id)}`,
  spec: (id: string) => `/api/harnesses/${e(id)}/spec`,
  specFrozenChanges: (id: string) => `/api/harnesses/${e(id)}/spec/frozen-changes`,
  runs: (id: string, status?: string, before?: string, limit = RUNS_PAGE) =>
    withQuery(`/api/harnesses/${e(id)}/runs`, { status, before, limit }),
  trace: (runId: string, limit?: number, from?: number) =>
    withQuery(`/api/runs/${e(runId)}`, { limit, ...(from && from > 1 ? { from } : {}) }),
  /** Where a run's steering and stop live; a conversation's turn has its own (`turnControls`). */
  runControls: (runId: string) => `/api/runs/${e(runId)}`,
  turnControls: (conversationId: string) => `/api/conversations/${e(conversationId)}/turn`,
  stop: (controls: string) => `${controls}/stop`,
  messages: (controls: string) => `${controls}/messages`,
  message: (controls: string, id: string) => `${controls}/messages/${e(id)}`,
  runModel: (runId: string) => `/api/runs/${e(runId)}/model`,
  runPlaybook: (runId: string) => `/api/runs/${e(runId)}/playbook`,
  startRun: (id: string) => `/api/harnesses/${e(id)}/runs?stream=true`,
  files: (id: string) => `/api/harnesses/${e(id)}/files`,
  fork: (runId: string) => `/api/runs/${e(runId)}/fork`,
  forkName: (runId: string) => `/api/runs/${e(runId)}/fork-name`,
  lineage: (runId: string) => `/api/runs/${e(runId)}/lineage`,
  handOffs: (runId: string) => `/api/runs/${e(runId)}/hand-offs`,
  charts: (id: string) => `/api/harnesses/${e(id)}/charts`,
  resume: (id: string) => `/api/harnesses/${e(id)}/resume?stream=true`,
  versions: (id: string) => `/api/harnesses/${e(id)}/versions`,
  interface: (id: string) => `/api/harnesses/${e(id)}/interface`,
  mcp: (id: string) => `/api/harnesses/${e(id)}/mcp`,
  uploads: (id: string) => `/api/harnesses/${e(id)}/uploads`,
  runsOf: (id: string) => `/api/harnesses/${e(id)}/runs`,
  /** A harness's threads (list, and where the Use tab's bridge makes its page's thread). */
  threads: (id: string) => `/api/harnesses/${e(id)}/threads`,
  /** A thread with its turns. */
  thread: (threadId: string) => `/api/threads/${e(threadId)}`,
  threadRun: (threadId: string) => `/api/threads/${e(threadId)}/run`,
  /** Every thread path (read again when a run ends). */
  allThreads: () => "/api/threads/",
  compare: (id: string, a: string, b: string, set?: string) =>
    withQuery(`/api/harnesses/${e(id)}/versions/compare`, { a, b, set }),
  restore: (id: string, version: string) =>
    `/api/harnesses/${e(id)}/versions/${e(version)}/restore`,
  restoreFrozenChanges: (id: string, version: string) =>
    `/api/harnesses/${e(id)}/versions/${e(version)}/frozen-changes`,
  evals: (id: string) => `/api/harnesses/${e(id)}/evals`,
  evalCases: (id: string) => `/api/harnesses/${e(id)}/evals/cases`,
  evalCase: (runId: string) => `/api/runs/${e(runId)}/eval-case`,
  builtins: () => "/api/catalog/builtins",
  measure: (id: string, pid: string) => `/api/harnesses/${e(id)}/proposals/${e(pid)}/measure`,
  trust: (id: string) => `/api/harnesses/${e(id)}/trust`,
  memory: (id: string) => `/api/memories/${e(id)}`,
  context: (runId: string, seq: number) => withQuery(`/api/runs/${e(runId)}/context`, { seq }),
  proposals: (id: string, status?: string) =>
    withQuery(`/api/harnesses/${e(id)}/proposals`, { status }),
  memories: (scope?: string, q?: string) => withQuery("/api/memories", { scope, q }),
  /** The requests waiting for a person, of every harness the workbench offers (the rail's badge). */
  pendingApprovals: () => "/api/approvals?status=pending",
  /** Every approval path (read again when a request comes or goes). */
  allApprovals: () => "/api/approvals",
  approval: (approvalId: string) => `/api/approvals/${e(approvalId)}`,
  approvalPreview: (approvalId: string) => `/api/approvals/${e(approvalId)}/preview`,
};

/**
 * The paths a page shows at first, for the server to load before it renders.
 *
 * @param route The route (with its conversation resolved).
 * @returns API paths.
 */
export function pagePaths(route: Route): string[] {
  const out = [paths.catalog(), paths.conversations(), paths.pendingApprovals()];
  if (route.conversation) out.push(paths.conversation(route.conversation));
  if (route.page === "memory") {
    out.push(paths.memories(route.query.scope, route.query.q));
    return out;
  }
  const h = route.harness;
  if (!h) return out;
  out.push(paths.harness(h));
  switch (route.tab) {
    case "runs":
      out.push(
        route.query.thread
          ? paths.thread(route.query.thread)
          : paths.runs(h, route.query.status, route.query.before),
      );
      break;
    case "trace":
      out.push(route.run ? paths.trace(route.run, TRACE_PREVIEW) : paths.runs(h));
      break;
    case "versions":
      out.push(paths.versions(h));
      break;
    case "spec":
      out.push(paths.spec(h));
      break;
    case "improve":
      out.push(paths.proposals(h, route.query.status));
      break;
  }
  return out;
}
