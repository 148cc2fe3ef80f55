/**
 * Preparing a run: the spec snapshot is loaded once, the input is read (`input` always literal,
 * `input_file` through the one sensitive-path check), the protected trace folders are taken, and a
 * harness with code needs a trusted folder. Bad input throws here, before anything is recorded.
 * Shells start runs through the run service (`lib/runs/service.ts`), which prepares, admits and
 * launches (`launch_run.ts`).
 *
 * @module
 */

import { badInput } from "../errors.ts";
import { readCheckedStart, resolveSafePath } from "../fs/safe_path.ts";
import { checkTraceDir, protectedTraceDirs } from "../journal/trace_dir.ts";
import type { ProviderContext } from "../models/registry.ts";
import type { Message, ModelProvider } from "../models/types.ts";
import type { RunRequest } from "../requests.ts";
import type { TurnCondition } from "../hive/runs.ts";
import type { TextDelta } from "../run_types.ts";
import { codeToRun } from "../harness_spec/code_refs.ts";
import { type LoadedSpec, loadSpec } from "../harness_spec/load.ts";
import type { ModelSpec } from "../harness_spec/schema.ts";
import type { Tool } from "../tools/tool.ts";
import { requireTrustFor, type TrustedFolder } from "../trust/trust_gate.ts";
import type { ApprovalGate } from "./approval_gate.ts";
import type { ApprovalResume } from "./approval_resume.ts";
import type { DelegationContext, Delegator } from "./delegation.ts";
import type { Replay } from "./replay.ts";

/** What a shell may add to a run besides its request. */
export interface RunOptions {
  /** A pre-allocated run id (the workbench's chat gives its turn one before it starts). */
  runId?: string;
  /** The run this one was delegated or forked from. */
  parentRunId?: string;
  /** Aborting it stops the run (status `error`, reason `stopped`). */
  signal?: AbortSignal;
  /** An already-loaded spec snapshot (otherwise it is loaded now). */
  spec?: LoadedSpec;
  /** Replaces provider creation (tests, embedders). */
  createProvider?: (model: ModelSpec, ctx: ProviderContext) => ModelProvider;
  /**
   * The trust gate's proof for this folder (the control plane passes the gate once, before it binds).
   * Without it, a harness with code runs only when the trust store trusts its folder.
   */
  trusted?: TrustedFolder;
  /** Earlier messages of a conversation, sent before the input (the workbench copilot). */
  history?: Message[];
  /**
   * Instructions of the caller (an OpenAI client's `system` messages or `instructions`): added after
   * the harness's own system prompt, never instead of it, and journalled in `run_started` (inside
   * `system`, and alone as `caller_instructions`).
   */
  callerInstructions?: string;
  /**
   * Context for the model after the input, kept apart from it (the workbench's selection line):
   * journalled as `input_note`, and not part of the input a scripted scenario is matched against.
   */
  inputNote?: string;
  /** Tools added to the spec's (the workbench copilot's native tools). */
  extraTools?: Tool[];
  /** Sees each model reply's text as it is generated (not journalled: `model_response` holds it). */
  onText?: (delta: TextDelta) => void;
  /** A fork's resume: the parent's checked prefix, replayed before the run goes on live. */
  replay?: Replay;
  /** A case of an evaluation: tagged with it, and counted in live-run fitness only when `live`. */
  evaluation?: { eval_id: string; live: boolean };
  /** A temporary copy of a harness (an evaluation of another version): not put in the catalog. */
  uncatalogued?: boolean;
  /** Where the run stands in a chain of hand-offs (default: a root run). */
  delegation?: DelegationContext;
  /** Hands a task to a peer (the run service gives it to runs of harnesses with peers). */
  delegator?: Delegator;
  /** A delegated run's cost cap. */
  costCapUsd?: number;
  /** Who started the run: a key id, or a local face (`cli`, `workbench`); its requests name it. */
  startedBy?: string;
  /** Asks a person before a call of the tools `approvals.tools` names (the run service's). */
  approvals?: ApprovalGate;
  /** A run stopped while it waited for a person, taken up after the person approved. */
  resumed?: ApprovalResume;
  /**
   * The thread the run is a turn of: named in `run_started` and the result, its turn recorded with
   * the run. Its earlier turns come as `history`.
   */
  threadId?: string;
  /**
   * Records the turn only while its thread is as this process knows it (its start's fast path:
   * lib/hive/threads.ts); else the launch throws and records nothing.
   */
  threadIf?: TurnCondition;
  /**
   * Called once the run's end is recorded in the hive, while its journal and the hive are flushed to
   * disk (before the run is reported finished): work for what comes next, done while the disk
   * writes (a thread's next history: lib/runs/threads.ts). What it throws is logged, never the run's.
   */
  afterEnd?: () => void;
}

/** A run that passed every check and is ready to start; nothing is recorded yet. */
export interface PreparedRun {
  loaded: LoadedSpec;
  /** The trace folder the journal is written in (today's `logging.trace_dir`). */
  traceDir: string;
  /**
   * The protected trace folders: `traceDir` and every former one the hive knows inside the harness,
   * refused to `input_file`, file tools and code alike. Taken once here, for the whole run.
   */
  traceDirs: readonly string[];
  inputText: string;
  input_file: string | undefined;
  options: RunOptions;
  /** Whether the folder is trusted. */
  trusted: boolean;
}

const MAX_INPUT_FILE_BYTES = 1024 * 1024;

/**
 * Builds the run's input text from a request the run schema has read (`lib/requests.ts`: `input`,
 * `input_file` or both). `input` is always literal; `input_file` goes through the sensitive-path check
 * (every protected trace folder included), is read through the file that was checked, and its content
 * becomes (part of) the input.
 */
async function resolveInput(
  loaded: LoadedSpec,
  request: RunRequest,
  traceDirs: readonly string[],
): Promise<{ text: string; input_file?: string }> {
  const path = request.input_file;
  if (path === undefined) return { text: request.input ?? "" };
  const safe = await resolveSafePath(loaded.dir, path, { traceDirs });
  const shown = JSON.stringify(path);
  const tooLarge = (size: number) =>
    badInput(`input_file ${shown} is ${size} bytes; the limit is 1 MiB`);
  let bytes: Uint8Array;
  try {
    const info = await Deno.stat(safe.absolute);
    if (!info.isFile) throw badInput(`input_file ${shown} is not a file`);
    if (info.size > MAX_INPUT_FILE_BYTES) throw tooLarge(info.size);
    // The file read is the file checked (a name swapped for a link meanwhile is refused), and at
    // most the limit is read: the size that counts is the opened file's.
    const read = await readCheckedStart(safe.absolute, path, MAX_INPUT_FILE_BYTES);
    if (read.size > MAX_INPUT_FILE_BYTES) throw tooLarge(read.size);
    bytes = read.bytes;
  } catch (err) {
    if (err instanceof Deno.errors.NotFound) throw badInput(`input_file ${shown} does not exist`);
    throw err;
  }
  const content = new TextDecoder().decode(bytes);
  const text = request.input !== undefined
    ? `${request.input}\n\n[file: ${safe.relative}]\n${content}`
    : content;
  return { text, input_file: safe.relative };
}

/**
 * Checks a run before it starts: loads the spec snapshot, resolves the input (`input_file` through the
 * sensitive-path check) and, for a harness with code, checks the folder is trusted. Bad input throws
 * here, before anything is recorded; nothing is written.
 *
 * @example
 * ```ts
 * const prepared = await prepareRun("./harnesses/hello", { input: "Hi" });
 * prepared.inputText; // "Hi"
 * ```
 * @param harnessDir The harness folder.
 * @param request The run's request, read by the run schema (`RUN_REQUEST`).
 * @param options Parent, abort signal, spec snapshot, the copilot's additions.
 * @returns The prepared run.
 */
export async function prepareRun(
  harnessDir: string,
  request: RunRequest,
  options: RunOptions = {},
): Promise<PreparedRun> {
  const loaded = options.spec ?? await loadSpec(harnessDir);
  const spec = loaded.spec;
  const traceDir = await checkTraceDir(loaded.dir, spec.logging?.trace_dir);
  const traceDirs = protectedTraceDirs(loaded.dir, spec.logging?.trace_dir);
  const { text, input_file } = await resolveInput(loaded, request, traceDirs);
  const trusted = await requireTrustFor(
    loaded.dir,
    codeToRun(spec),
    `The harness ${JSON.stringify(spec.id)}`,
    options.trusted,
  );
  return { loaded, traceDir, traceDirs, inputText: text, input_file, options, trusted };
}
