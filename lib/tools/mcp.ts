/**
 * Tools from MCP servers (`mcp_servers`): each server is started for the run (stdio, with only `PATH`
 * and its own `env`, in a folder inside the harness) or reached (Streamable HTTP), its tools listed at
 * run start and offered as `<server>__<tool>` with their JSON Schemas — only those in its allow-list
 * when it has one — each call bounded by a time limit. A server that cannot start or list is a run
 * error naming it, or with `optional: true` a warning and the run goes on without it. Every server is
 * stopped when the run ends, whatever ended it. Stdio servers are code: an untrusted folder starts
 * none.
 *
 * @module
 */

import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StreamableHTTPClientTransport } from "@modelcontextprotocol/sdk/client/streamableHttp.js";
import type { Transport } from "@modelcontextprotocol/sdk/shared/transport.js";
import { resolveSafePath } from "../fs/safe_path.ts";
import type { HarnessSpec } from "../harness_spec/schema.ts";
import { stdioTransport } from "./mcp_stdio.ts";
import { type Tool, ToolError } from "./tool.ts";
import type { ToolProblem } from "./toolset.ts";

/** A server that could not start or list its tools, and the run cannot go on without it. */
export class McpServerError extends Error {
  /**
   * @param server The server's name.
   * @param message What went wrong.
   */
  constructor(readonly server: string, message: string) {
    super(message);
    this.name = "McpServerError";
  }
}

/** The MCP tools of a run and a way to stop every server. */
export interface McpTools {
  tools: Tool[];
  problems: ToolProblem[];
  close(): Promise<void>;
}

type ServerSpec = NonNullable<HarnessSpec["mcp_servers"]>[number];

/** How long a server may take to start and list its tools. */
const START_TIMEOUT_MS = 30_000;

function text(content: unknown): string {
  if (!Array.isArray(content)) return JSON.stringify(content ?? "");
  return content.map((c) =>
    c && typeof c === "object" && (c as { type?: string }).type === "text"
      ? String((c as { text?: unknown }).text ?? "")
      : JSON.stringify(c)
  ).join("\n");
}

/** A connected server: its client, and its transport (what a stdio server said before it failed). */
interface Connected {
  client: Client;
  transport: Transport & { stderrTail?(): string; failure?(): string | undefined };
  /** A stdio server's process group: stopped apart, as a client closed by a failure no longer reaches it. */
  stdio: boolean;
}

async function connect(s: ServerSpec, harnessDir: string): Promise<Connected> {
  let transport: Connected["transport"];
  if (s.command) {
    const cwd = s.cwd ? (await resolveSafePath(harnessDir, s.cwd)).absolute : harnessDir;
    transport = stdioTransport({
      command: s.command,
      args: s.args ?? [],
      env: { PATH: Deno.env.get("PATH") ?? "", ...(s.env ?? {}) },
      cwd,
    });
  } else {
    transport = new StreamableHTTPClientTransport(new URL(s.url!));
  }
  const client = new Client({ name: "framework", version: "1" });
  try {
    await client.connect(transport, { timeout: START_TIMEOUT_MS });
  } catch (err) {
    await transport.close().catch(() => {});
    throw new Error(why(transport, err));
  }
  return { client, transport, stdio: !!s.command };
}

/** The reason a request to a server failed: the transport's own when it gave up on the server. */
function why(transport: Connected["transport"], err: unknown): string {
  const failure = transport.failure?.();
  return failure ? `the server failed: ${failure}` : (err as Error).message;
}

/** Stops a server: its client, and a stdio server's process group. */
async function disconnect(c: Connected): Promise<void> {
  await c.client.close().catch(() => {});
  if (c.stdio) await c.transport.close().catch(() => {});
}

/**
 * Starts (or reaches) the servers of a spec and lists their tools.
 *
 * @param spec The spec snapshot.
 * @param harnessDir The harness folder.
 * @param options Whether the folder is trusted (stdio servers need it) and the default call limit.
 * @returns The tools, the problems of optional servers, and `close`.
 * @throws {McpServerError} For a server the run needs that cannot start or list.
 */
export async function connectMcpServers(
  spec: HarnessSpec,
  harnessDir: string,
  options: { trusted: boolean; defaultTimeoutS: number },
): Promise<McpTools> {
  const servers: Connected[] = [];
  const tools: Tool[] = [];
  const problems: ToolProblem[] = [];
  const close = async () => {
    await Promise.allSettled(servers.map(disconnect));
  };
  try {
    for (const s of spec.mcp_servers ?? []) {
      const fail = (message: string) => {
        if (s.optional) problems.push({ name: s.name, message });
        else throw new McpServerError(s.name, message);
      };
      if (s.command && !options.trusted) {
        fail(`MCP server ${s.name} was not started: the harness folder is not trusted`);
        continue;
      }
      let connected;
      try {
        connected = await connect(s, harnessDir);
      } catch (err) {
        fail(`MCP server ${s.name} did not start: ${(err as Error).message}`);
        continue;
      }
      servers.push(connected);
      let listed: { name: string; description?: string; inputSchema: unknown }[];
      try {
        listed = (await connected.client.listTools(undefined, { timeout: START_TIMEOUT_MS })).tools;
      } catch (err) {
        const stderr = connected.transport.stderrTail?.();
        fail(
          `MCP server ${s.name} did not list its tools: ${why(connected.transport, err)}${
            stderr ? ` (${stderr.split("\n").slice(-2).join(" ")})` : ""
          }`,
        );
        continue;
      }
      const allowed = s.tools ? new Set(s.tools) : undefined;
      for (const name of s.tools ?? []) {
        if (!listed.some((t) => t.name === name)) {
          problems.push({
            name: `${s.name}__${name}`,
            message: `MCP server ${s.name} has no tool ${name}`,
          });
        }
      }
      const timeoutMs = (s.timeout_s ?? options.defaultTimeoutS) * 1000;
      for (const t of listed) {
        if (allowed && !allowed.has(t.name)) continue;
        const { client, transport } = connected;
        tools.push({
          source: "mcp",
          server: s.name,
          timeout_s: timeoutMs / 1000,
          spec: {
            name: `${s.name}__${t.name}`,
            description: t.description ?? `${t.name} (MCP server ${s.name})`,
            parameters: (t.inputSchema as Record<string, unknown>) ?? { type: "object" },
          },
          async run(args, ctx) {
            let result;
            try {
              result = await client.callTool({ name: t.name, arguments: args }, undefined, {
                timeout: timeoutMs,
                signal: ctx.signal,
              });
            } catch (err) {
              const message = why(transport, err);
              throw new ToolError(
                /timed out|timeout/i.test(message) ? "timeout" : "failed",
                `MCP ${s.name}/${t.name}: ${message}`,
              );
            }
            const out = text(result.content);
            if (result.isError) throw new ToolError("mcp_error", out || `${t.name} failed`);
            return out;
          },
        });
      }
    }
  } catch (err) {
    await close();
    throw err;
  }
  return { tools, problems, close };
}

/** One server as a check saw it: its tools, or why it could not be reached. */
export interface ServerTools {
  server: string;
  tools: string[];
  error?: string;
  /** Allow-list names it does not offer, and the like. */
  warnings: string[];
}

/** The listing going on for each harness folder (in this process). */
const listings = new Map<string, Promise<ServerTools[]>>();

/**
 * Starts each MCP server of a spec once, lists its tools and stops it (`validate --connect`, the
 * workbench's Overview). Stdio servers start only in a trusted folder. Starting servers is costly
 * and has effects, so one harness has one listing at a time: a call while one is going shares its
 * answer instead of starting the servers again.
 *
 * @example
 * ```ts
 * import { loadSpec } from "../harness_spec/load.ts";
 *
 * const { dir, spec } = await loadSpec("./harnesses/hello");
 * const servers = await listServerTools(dir, spec, true); // [{server, tools, warnings, error?}]
 * ```
 * @param dir The harness folder.
 * @param spec The spec.
 * @param trusted Whether the folder is trusted.
 * @returns One entry per server.
 */
export function listServerTools(
  dir: string,
  spec: HarnessSpec,
  trusted: boolean,
): Promise<ServerTools[]> {
  let listing = listings.get(dir);
  if (!listing) {
    listing = listEachServer(dir, spec, trusted).finally(() => listings.delete(dir));
    listings.set(dir, listing);
  }
  return listing;
}

async function listEachServer(
  dir: string,
  spec: HarnessSpec,
  trusted: boolean,
): Promise<ServerTools[]> {
  const out: ServerTools[] = [];
  for (const server of spec.mcp_servers ?? []) {
    try {
      const pool = await connectMcpServers(
        { ...spec, mcp_servers: [{ ...server, optional: false }] },
        dir,
        { trusted, defaultTimeoutS: 30 },
      );
      out.push({
        server: server.name,
        tools: pool.tools.map((t) => t.spec.name),
        warnings: pool.problems.map((p) => p.message),
      });
      await pool.close();
    } catch (err) {
      out.push({ server: server.name, tools: [], error: (err as Error).message, warnings: [] });
    }
  }
  return out;
}
