/**
 * What a tool is to the runner: the spec offered to the model and a function that runs a call. A
 * failing call throws a {@link ToolError}, which the model sees as an error result; it never ends the
 * run by itself.
 *
 * @module
 */

import type { ToolSpec } from "../models/types.ts";
import type { HarnessSpec } from "../harness_spec/schema.ts";

/** What a tool call can use. */
export interface ToolContext {
  /** The harness folder (absolute, symlinks resolved). */
  harnessDir: string;
  /**
   * The protected trace folders (absolute), refused by file tools: today's `logging.trace_dir` and
   * every former one the hive knows inside the harness, taken once when the run was prepared.
   */
  traceDirs: readonly string[];
  /** The spec snapshot of the run. */
  spec: HarnessSpec;
  runId: string;
  /** Aborted when the run stops or times out. */
  signal: AbortSignal;
  /**
   * Asks for a switch of playbook at the end of this turn (the `switch_playbook` tool); returns what
   * the model is told. Absent outside a run's loop.
   */
  switchPlaybook?: (name: string) => string;
  /** Hands a task to a peer harness (the `delegate` tool); answers the text the model reads. */
  delegate?: (task: string, peer?: string) => Promise<string>;
}

/** A runnable tool. */
export interface Tool {
  spec: ToolSpec;
  /** Where it comes from: `builtin`, `code` or `mcp`. */
  source: "builtin" | "code" | "mcp";
  /** The MCP server it belongs to. */
  server?: string;
  /** Its own time limit in seconds, when it has one (else `limits.tool_timeout_s`). */
  timeout_s?: number;
  /** Runs a call and returns the text the model sees (code tools add their console lines). */
  run(args: Record<string, unknown>, ctx: ToolContext): Promise<string | ToolOutput>;
}

/** What a tool returns besides plain text. */
export interface ToolOutput {
  content: string;
  /** Console lines captured from code. */
  logs?: string[];
}

/** A tool call that failed in a way the model should see. */
export class ToolError extends Error {
  /** Normalised code: `not_found`, `refused`, `invalid_arguments`, `timeout`, `failed`, ... */
  readonly code: string;

  /**
   * @param code A short normalised code.
   * @param message What went wrong.
   */
  constructor(code: string, message: string) {
    super(message);
    this.name = "ToolError";
    this.code = code;
  }
}

/**
 * Reads a required string argument.
 *
 * @param args The call's arguments.
 * @param name The argument name.
 * @returns The value.
 */
export function stringArg(args: Record<string, unknown>, name: string): string {
  const v = args[name];
  if (typeof v !== "string") {
    throw new ToolError(
      "invalid_arguments",
      `Argument ${JSON.stringify(name)} must be a string, got ${
        v === undefined ? "nothing" : typeof v
      }`,
    );
  }
  return v;
}
