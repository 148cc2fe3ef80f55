/**
 * What the copilot's tools share: the request's context (its selection, databases, run service) and
 * the helpers that read arguments and turn framework errors into tool errors the copilot sees.
 *
 * @module
 */

import { asFrameworkError } from "../../../errors.ts";
import type { Hive } from "../../../hive/open.ts";
import type { RunService } from "../../../runs/service.ts";
import { type Tool, ToolError } from "../../../tools/tool.ts";
import { harnessDirOf } from "../../catalog.ts";
import { addArtifact } from "../../conversations.ts";
import type { WorkbenchDb } from "../../db.ts";

/** What the copilot's tools act on: owned by one chat request. */
export interface CopilotContext {
  hive: Hive;
  db: WorkbenchDb;
  /** Target runs start here (a separate journalled run owned by the target). */
  runs: RunService;
  conversationId: string;
  /** The selected harness and run of this request; tools may change them (saved with the turn). */
  selection: { harness_id: string | null; run_id: string | null };
  /** Where `create_harness` makes new harnesses. */
  harnessesDir: string;
  /** Artifacts made during this turn. */
  artifacts: string[];
  /**
   * Told of each target run a tool starts, as it starts: the chat follows it, and shows its card
   * when it waits for a person's decision (a tool that waits for the run answers only after).
   */
  onTargetRun?: (run: { run_id: string; harness_id: string }) => void;
}

/** The copilot edits as a remote caller: it never writes a frozen field. */
export const COPILOT_POLICY = "remote" as const;

/** The construction-log actor of the copilot's edits. */
export const COPILOT_ACTOR = "workbench:copilot";

/** A tool call's arguments. */
export type Args = Record<string, unknown>;

/**
 * A string argument (empty counts as absent).
 *
 * @param args The arguments.
 * @param name The argument.
 * @param required Throw when it is absent.
 * @returns The string, or undefined.
 */
export function str(args: Args, name: string, required = false): string | undefined {
  const v = args[name];
  if (v === undefined || v === null || v === "") {
    if (required) throw new ToolError("invalid_arguments", `Missing ${JSON.stringify(name)}`);
    return undefined;
  }
  if (typeof v !== "string") {
    throw new ToolError("invalid_arguments", `${JSON.stringify(name)} must be a string`);
  }
  return v;
}

/**
 * The harness a tool acts on: the named one, else the selected one.
 *
 * @param ctx The request's context.
 * @param args The arguments (`harness`).
 * @returns Its id and folder.
 */
export function target(ctx: CopilotContext, args: Args): { id: string; dir: string } {
  const id = str(args, "harness") ?? ctx.selection.harness_id;
  if (!id) {
    throw new ToolError(
      "no_harness",
      "No harness is selected; name one (list_harnesses shows them)",
    );
  }
  return { id, dir: harnessDirOf(ctx.hive, id) };
}

/** Runs a tool body; framework errors become tool errors the copilot sees. */
async function guarded(fn: () => Promise<unknown>): Promise<string> {
  try {
    const out = await fn();
    return typeof out === "string" ? out : JSON.stringify(out, null, 2);
  } catch (err) {
    if (err instanceof ToolError) throw err;
    const e = asFrameworkError(err);
    if (e.kind === "internal") {
      console.error("copilot tool failed:", (e as { cause?: unknown }).cause ?? err);
    }
    throw new ToolError(e.kind, e.message);
  }
}

/**
 * Declares a copilot tool.
 *
 * @param name The tool name.
 * @param description What it does, for the model.
 * @param properties Its arguments' JSON Schemas.
 * @param required The required arguments.
 * @param run The body.
 * @returns The tool.
 */
export function tool(
  name: string,
  description: string,
  properties: Record<string, unknown>,
  required: string[],
  run: (args: Args) => Promise<unknown>,
): Tool {
  return {
    source: "builtin",
    spec: {
      name,
      description,
      parameters: { type: "object", properties, required, additionalProperties: false },
    },
    run: (args) => guarded(() => run(args)),
  };
}

/** The `harness` argument most tools take. */
export const HARNESS = {
  harness: { type: "string", description: "Harness id (default: the selected harness)" },
};

/**
 * Records an artifact of this turn (a harness, a run, a proposal) and returns its id.
 *
 * @param ctx The request's context.
 * @param kind The artifact's kind.
 * @param title Its title.
 * @param content Text, or a value shown as JSON.
 * @param harnessId The harness it belongs to.
 * @returns The artifact id.
 */
export function artifact(
  ctx: CopilotContext,
  kind: string,
  title: string,
  content: unknown,
  harnessId: string | null,
): string {
  const a = addArtifact(ctx.db, {
    conversation_id: ctx.conversationId,
    message_id: null,
    kind,
    title,
    content: typeof content === "string" ? content : JSON.stringify(content, null, 2),
    harness_id: harnessId,
  });
  ctx.artifacts.push(a.id);
  return a.id;
}
