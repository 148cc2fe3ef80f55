/**
 * A harness served as an MCP server (`framework mcp serve <dir>`): one tool, `run {input?,
 * input_file?, thread_id?}`, each call an ordinary journalled run of the harness through the run
 * service (trust, journal, hive) — a turn of a thread when `thread_id` names one (or is `new`) —
 * answering the run's output, with its status, cost, run id and thread as structured content that
 * the tool's declared output schema ({@link RUN_TOOL_OUTPUT}) describes. Over stdio the session ends
 * when its input ends (the client closed it) or on SIGINT/SIGTERM: the runs it started are stopped
 * and the process exits quietly (docs/runs.md, MCP servers).
 *
 * @module
 */

import process from "node:process";
import { readRequest, RUN_REQUEST } from "../requests.ts";
import { McpServer } from "@modelcontextprotocol/sdk/server/mcp.js";
import { StdioServerTransport } from "@modelcontextprotocol/sdk/server/stdio.js";
import type {
  Transport,
  TransportSendOptions,
} from "@modelcontextprotocol/sdk/shared/transport.js";
import type { JSONRPCMessage, MessageExtraInfo } from "@modelcontextprotocol/sdk/types.js";
import * as z from "zod";
import { RUN_STATUSES } from "../run_types.ts";
import { FRAMEWORK_VERSION } from "../version.ts";
import type { HarnessTarget, RunService, Submission } from "./service.ts";
import { openHive } from "../hive/open.ts";
import { submitToThread, threadNamed } from "./threads.ts";
import { loadSpecCached } from "../harness_spec/cache.ts";

/**
 * The structured content of a `run` call, declared as the tool's output schema so a client can check
 * it: a finished run's id, status, cost and turns, or, for a run that waits for a person's decision,
 * `awaiting_approval` with the request's id, tool and arguments hash; the thread when the call named
 * one. Nothing else (`additionalProperties: false`).
 */
export const RUN_TOOL_OUTPUT = z.strictObject({
  run_id: z.string().describe("The run's id (framework trace <run_id>)"),
  status: z.enum([...RUN_STATUSES, "awaiting_approval"]).describe(
    "How the run ended, or awaiting_approval while it waits for a person's decision",
  ),
  cost_usd: z.number().min(0).optional().describe("What the run cost (once it has ended)"),
  turns: z.number().int().min(0).optional().describe("The run's model turns (once it has ended)"),
  thread_id: z.string().optional().describe("The thread the run is a turn of, when it is one"),
  approval_id: z.string().optional().describe(
    "The approval request the run waits on (awaiting_approval only)",
  ),
  tool: z.string().optional().describe("The tool awaiting approval (awaiting_approval only)"),
  arguments_hash: z.string().regex(/^[0-9a-f]{64}$/).optional().describe(
    "The hash of the arguments to approve, to quote with --hash (awaiting_approval only)",
  ),
});

/** The structured content of a `run` call. */
export type RunToolOutput = z.infer<typeof RUN_TOOL_OUTPUT>;

/**
 * The `run` tool's description: the harness, its own description as one sentence (ending with a
 * single full stop whether or not it brings one), and how to call the tool.
 *
 * @param id The harness id.
 * @param description The harness's description, if it has one.
 * @returns The description.
 */
export function runToolDescription(id: string, description?: string): string {
  const about = `Run the harness ${id}${description?.trim() ? `: ${description.trim()}` : ""}`;
  return `${
    /[.!?]$/.test(about) ? about : `${about}.`
  } Give input (text) or input_file (a file inside the harness folder); thread_id "new" starts a conversation, and its id continues it.`;
}

/**
 * Serves a harness over stdio (`framework mcp serve`) until the session ends: its input ends (the
 * client closed it — the normal end of a stdio session), its output is closed, the transport closes,
 * or the process gets SIGINT or SIGTERM. Then it stops the runs it started (each ends `error`, reason
 * `stopped`, or `interrupted_awaiting_approval` with its request still pending; its journal closed),
 * answers the requests it read, closes and resolves, having written nothing but MCP messages.
 *
 * @example
 * ```ts
 * import { trustGate } from "../trust/trust_gate.ts";
 * import { createRunService } from "./service.ts";
 *
 * const trusted = await trustGate(await Deno.realPath("./harnesses/hello"), { approve: true });
 * await serveHarnessOverStdio(createRunService(), trusted);
 * Deno.exit(0);
 * ```
 * @param runs The run service the calls go through (closed when the session ends).
 * @param target The harness folder or the trust gate's proof for it.
 */
export async function serveHarnessOverStdio(
  runs: RunService,
  target: HarnessTarget,
): Promise<void> {
  const ended = Promise.withResolvers<void>();
  const end = () => ended.resolve();
  const signals = ["SIGINT", "SIGTERM"] as const;
  const transport = new StdioServerTransport();
  transport.onclose = end;
  process.stdin.once("end", end);
  // A client gone for good (EPIPE) ends the session too, instead of an error on stderr (kept until
  // the process exits: a late answer may meet the same closed pipe).
  process.stdout.on("error", end);
  for (const s of signals) Deno.addSignalListener(s, end);
  try {
    const server = await serveHarnessOverMcp(runs, target, transport);
    const answered = trackAnswers(transport);
    await ended.promise;
    // The requests read before the end are answered (a run among them stopped), not dropped.
    await runs.close(0);
    await answered();
    await server.close();
  } finally {
    process.stdin.off("end", end);
    for (const s of signals) Deno.removeSignalListener(s, end);
  }
}

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
      description: runToolDescription(loaded.spec.id, loaded.spec.description),
      inputSchema: {
        input: z.string().optional().describe("The input, literal text"),
        input_file: z.string().optional().describe("A file inside the harness folder"),
        thread_id: z.string().optional().describe(
          'A thread to continue (its earlier turns are given to the run), or "new"',
        ),
      },
      outputSchema: RUN_TOOL_OUTPUT,
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
          const structured: RunToolOutput = {
            run_id: run.run_id,
            status: "awaiting_approval",
            approval_id: waiting.approval_id,
            tool: waiting.tool,
            arguments_hash: waiting.arguments_hash,
            ...(threadId !== undefined ? { thread_id: threadId } : {}),
          };
          return {
            content: [{
              type: "text" as const,
              text:
                `The run ${run.run_id} waits for a person's decision on ${waiting.tool} (request ${waiting.approval_id}): approve or deny it with \`framework approvals ${loaded.dir} approve|deny ${waiting.approval_id}\`, in the workbench, or on the control plane; the run goes on then.`,
            }],
            structuredContent: structured,
            isError: false,
          };
        }
        const r = await run.result;
        const structured: RunToolOutput = {
          run_id: r.run_id,
          status: r.status,
          cost_usd: r.cost_usd,
          turns: r.turns,
          ...(r.thread_id ? { thread_id: r.thread_id } : {}),
        };
        return {
          content: [{ type: "text" as const, text: r.output || r.error?.message || r.status }],
          structuredContent: structured,
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

/**
 * Follows a connected transport's requests until they are answered: the returned function resolves
 * once every request read so far has had its response sent (or was cancelled by the client).
 */
function trackAnswers(transport: Transport): () => Promise<void> {
  const pending = new Set<string | number>();
  let drained = Promise.withResolvers<void>();
  const settle = (id: string | number | undefined) => {
    if (id !== undefined && pending.delete(id) && !pending.size) drained.resolve();
  };
  const read = transport.onmessage;
  transport.onmessage = <T extends JSONRPCMessage>(message: T, extra?: MessageExtraInfo) => {
    if ("method" in message && "id" in message) {
      if (!pending.size) drained = Promise.withResolvers<void>();
      pending.add(message.id);
    } else if ("method" in message && message.method === "notifications/cancelled") {
      settle((message.params as { requestId?: string | number } | undefined)?.requestId);
    }
    read?.(message, extra);
  };
  const send = transport.send.bind(transport);
  transport.send = async (message: JSONRPCMessage, options?: TransportSendOptions) => {
    try {
      await send(message, options);
    } finally {
      if (!("method" in message) && "id" in message) settle(message.id);
    }
  };
  return () => (pending.size ? drained.promise : Promise.resolve());
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
