/**
 * The workbench's API: called in process by the launcher for `/api` (the one origin the browser
 * sees) and by the pages for what they render, its routes by resource (the workbench itself,
 * conversations, harnesses, runs, proposals, memories), each a few lines over the library.
 *
 * @module
 */

import { Hono } from "hono";
import { openHive } from "../lib/hive/open.ts";
import { readJsonObject } from "../lib/http/body.ts";
import { withCheckedHost } from "../lib/http/host.ts";
import { createRunService } from "../lib/runs/service.ts";
import { discoverHarnesses } from "../lib/workbench/catalog.ts";
import {
  type CopilotModel,
  resolveCopilotModel,
  setupCopilot,
} from "../lib/workbench/copilot/setup.ts";
import { openWorkbenchDb } from "../lib/workbench/db.ts";
import { createRescan } from "../lib/workbench/rescan.ts";
import { finishApp } from "./hono_app.ts";
import type { WorkbenchContext } from "./workbench/context.ts";
import { conversationRoutes } from "./workbench/conversation_routes.ts";
import { harnessRoutes } from "./workbench/harness_routes.ts";
import { memoryRoutes } from "./workbench/memory_routes.ts";
import { metaRoutes } from "./workbench/meta_routes.ts";
import { proposalRoutes } from "./workbench/proposal_routes.ts";
import { forkRoutes } from "./workbench/fork_routes.ts";
import { versionRoutes } from "./workbench/version_routes.ts";
import { evalCaseRoutes } from "./workbench/eval_case_routes.ts";
import { interfaceRoutes } from "./workbench/interface_routes.ts";
import { mcpRoutes } from "./workbench/mcp_routes.ts";
import { liveRoutes } from "./workbench/live_routes.ts";
import { runRoutes } from "./workbench/run_routes.ts";
import { threadRoutes } from "./workbench/thread_routes.ts";
import { approvalRoutes } from "./workbench/approval_routes.ts";

/** Options of {@link createWorkbenchApi}. */
export interface WorkbenchApiOptions {
  /** Where new harnesses are created. */
  harnessesDir: string;
  /** Extra harness folders (`--dir`). */
  dirs?: string[];
  /** Trees to scan (`./harnesses` is always scanned). */
  scanDirs?: string[];
  /** The copilot's model (default: from the environment). */
  copilotModel?: CopilotModel | undefined;
  maxBodyBytes?: number;
}

/** The API, ready to serve. */
export interface WorkbenchApi {
  fetch: (request: Request) => Response | Promise<Response>;
  /** The copilot's model, when one is configured. */
  copilotModel: CopilotModel | undefined;
  /** How many runs of this workbench are going (the copilot's and the targets'). */
  activeRuns(): number;
  /**
   * Lets the workbench's runs finish for up to `graceMs`, then stops the rest (`error`, reason
   * `stopped`, journals closed) and waits for them (the run service's close).
   */
  closeRuns(graceMs: number): Promise<void>;
}

/**
 * Builds the workbench API: sets up the copilot (validated and trusted), opens the databases and
 * discovers harnesses.
 *
 * @param options Folders, copilot model.
 * @returns The request handler.
 */
export async function createWorkbenchApi(options: WorkbenchApiOptions): Promise<WorkbenchApi> {
  const hive = openHive();
  const maxBody = options.maxBodyBytes ?? 1024 * 1024;
  const scanRoots = [options.harnessesDir, ...(options.scanDirs ?? [])];
  await discoverHarnesses(hive, options.dirs ?? [], scanRoots);
  const ctx: WorkbenchContext = {
    hive,
    db: openWorkbenchDb(),
    copilot: await setupCopilot(),
    copilotModel: "copilotModel" in options ? options.copilotModel : resolveCopilotModel(),
    harnessesDir: options.harnessesDir,
    runs: createRunService(),
    // Folders added or removed while the workbench runs are found by a cheap rescan, at most every
    // few seconds when the catalog is read, or at once when asked (the rail's refresh).
    rescan: createRescan(() => discoverHarnesses(hive, [], scanRoots), 3000),
    body: (c, allowEmpty = false) => readJsonObject(c.req.raw, maxBody, { allowEmpty }),
  };
  const app = new Hono();
  for (
    const routes of [
      metaRoutes,
      conversationRoutes,
      harnessRoutes,
      runRoutes,
      threadRoutes,
      approvalRoutes,
      liveRoutes,
      forkRoutes,
      versionRoutes,
      evalCaseRoutes,
      interfaceRoutes,
      mcpRoutes,
      proposalRoutes,
      memoryRoutes,
    ]
  ) app.route("/", routes(ctx));
  finishApp(app);
  return {
    fetch: withCheckedHost(app.fetch),
    copilotModel: ctx.copilotModel,
    activeRuns: () => ctx.runs.active().length,
    closeRuns: (graceMs) => ctx.runs.close(graceMs),
  };
}
