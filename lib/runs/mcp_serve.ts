/**
 * A harness served as an MCP server (`framework mcp serve <dir>`): one tool, `run {input?,
 * input_file?, thread_id?}`, each call an ordinary journalled run of the harness through the run
 * service (trust, journal, hive) — a turn of a thread when `thread_id` names one (or is `new`) —
 * answering the run's output, with its status, cost, run id and thread as structured content.
 *
 * @module
 */

import { readRequest, RUN_REQUEST } from "../requests.ts";
import { McpServer } from "@modelcontextprotocol/sdk/server/mcp.js";
import type { Transport } from "@modelcontextprotocol/sdk/shared/transport.js";
import * as z from "zod";
import { FRAMEWORK_VERSION } from "../version.ts";
import type { HarnessTarget, RunService, Submission } from "./service.ts";
import { openHive } from "../hive/open.ts";
import { submitToThread, threadNamed } from "./threads.ts";
import { loadSpecCached } from "../harness_spec/cache.ts";

/**
 * Serves a harness over an MCP transport until the transport closes.
 *
 * @param runs The run service the calls go through.
 * @param target The harness folder or the trust gate's proof for it.
 * @param transport The transport (stdio for `framework mcp serve`).
 * @returns The server (close it to stop).
 */
export async function serveHarnessOverMcp(
  runs: RunService,
  target: HarnessTarget,
  transport: Transport,
): Promise<McpServer> {
  const loaded = await loadSpecCached(typeof target === "string" ? target : target.dir);
  const harness = { id: loaded.spec.id, dir: loaded.dir };
  const server = new McpServer({ name: `framework:${loaded.spec.id}`, version: FRAMEWORK_VERSION });
  server.registerTool(
    "run",
    {
      description: `Run the harness ${loaded.spec.id}${
        loaded.spec.description ? `: ${loaded.spec.description}` : ""
      }. Give input (text) or input_file (a file inside the harness folder); thread_id "new" starts a conversation, and its id continues it.`,
      inputSchema: {
        input: z.string().optional().describe("The input, literal text"),
        input_file: z.string().optional().describe("A file inside the harness folder"),
        thread_id: z.string().optional().describe(
          'A thread to continue (its earlier turns are given to the run), or "new"',
        ),
      },
    },
    async (args: { input?: string; input_file?: string; thread_id?: string }) => {
      try {
        const request = readRequest(RUN_REQUEST, {
          ...(args.input !== undefined ? { input: args.input } : {}),
          ...(args.input_file !== undefined ? { input_file: args.input_file } : {}),
        });
        let run: Submission;
        let threadId: string | undefined;
        if (args.thread_id === undefined) run = await runs.submit(target, request);
        else {
          const db = openHive();
          threadId = threadNamed(db, harness, args.thread_id, "mcp");
          const sent = await submitToThread(db, runs, target, harness, threadId, request, {
            viewer: null,
          });
          if (sent.kind !== "run") throw new Error("unreachable: a thread's run was steered");
          run = sent.submission;
        }
        // A run that waits for a person answers now, saying how to decide, instead of hanging.
        const waiting = await Promise.race([
          run.result.then(() => undefined),
          firstApprovalRequest(run),
        ]);
        if (waiting) {
          return {
            content: [{
              type: "text" as const,
              text:
                `The run ${run.run_id} waits for a person's decision on ${waiting.tool} (request ${waiting.approval_id}): approve or deny it with \`framework approvals ${loaded.dir} approve|deny ${waiting.approval_id}\`, in the workbench, or on the control plane; the run goes on then.`,
            }],
            structuredContent: {
              run_id: run.run_id,
              status: "awaiting_approval",
              approval_id: waiting.approval_id,
              tool: waiting.tool,
              arguments_hash: waiting.arguments_hash,
              ...(threadId !== undefined ? { thread_id: threadId } : {}),
            },
            isError: false,
          };
        }
        const r = await run.result;
        return {
          content: [{ type: "text" as const, text: r.output || r.error?.message || r.status }],
          structuredContent: {
            run_id: r.run_id,
            status: r.status,
            cost_usd: r.cost_usd,
            turns: r.turns,
            ...(r.thread_id ? { thread_id: r.thread_id } : {}),
          },
          isError: r.status !== "success",
        };
      } catch (err) {
        return {
          content: [{ type: "text" as const, text: (err as Error).message }],
          isError: true,
        };
      }
    },
  );
  await server.connect(transport);
  return server;
}

/** The run's first approval request, if it makes one before it ends. */
async function firstApprovalRequest(
  run: Submission,
): Promise<{ approval_id: string; tool: string; arguments_hash: string } | undefined> {
  for await (const frame of run.frames()) {
    if (frame.frame === "trace" && frame.type === "approval_requested") {
      const p = frame.payload as { approval_id: string; tool: string; arguments_hash: string };
      return { approval_id: p.approval_id, tool: p.tool, arguments_hash: p.arguments_hash };
    }
  }
  return undefined;
}
