/**
 * A finished run's journal as OpenTelemetry spans, after the GenAI semantic conventions: a root
 * `invoke_agent <harness id>` span for the run, a `chat <model>` span per model call, an
 * `execute_tool <name>` span per tool call and an `invoke_agent <peer>` span per hand-off, each timed
 * by the journal's own event timestamps. Built after the run from its record alone, so exporting can
 * never change what a run does, and with ids derived from run ids (`ids.ts`), so a run exported
 * twice is the same trace. Lineage becomes links: a delegated run links to its parent's hand-off
 * span (and the hand-off span to the delegated run), a fork to the model call it re-entered at, a run
 * taken up after an approval to the run it continues.
 *
 * @module
 */

import {
  type Attributes,
  type Link,
  SpanKind,
  SpanStatusCode,
  TraceFlags,
} from "@opentelemetry/api";
import { hrTimeDuration, millisToHrTime } from "@opentelemetry/core";
import type { Resource } from "@opentelemetry/resources";
import type { ReadableSpan } from "@opentelemetry/sdk-trace";
import type { JournalEvent } from "../journal/event.ts";
import type { Message, ToolCall } from "../models/types.ts";
import { FRAMEWORK_VERSION } from "../version.ts";
import {
  assistantMessage,
  clipText,
  type ConventionMessage,
  conventionMessage,
  DEFAULT_CONTENT_LIMIT,
  messageJson,
  messagesJson,
  systemInstructions,
} from "./content.ts";
import { spanIdOf, traceIdOf } from "./ids.ts";

/** What spans are built with besides the journal. */
export interface RunSpansOptions {
  /** `gen_ai.agent.name`: the harness's name. */
  agentName: string;
  /** Message content on the spans (already redacted in the journal). */
  captureContent: boolean;
  /** The longest a content attribute is, in characters (default `DEFAULT_CONTENT_LIMIT`). */
  contentLimit?: number;
  /** The exported resource (`service.name`, …), shared by every span of the export. */
  resource: Resource;
}

/** Kinds of link a root span carries (`framework.link.type`). */
export type LinkType = "delegation" | "delegated_run" | "fork" | "resume";

/** A span being built: its times and status are settled when it closes. */
interface Draft {
  key: string;
  name: string;
  kind: SpanKind;
  parentKey?: string;
  /** The run whose id the span's id is derived from (another run for a hand-off). */
  idRun?: string;
  start: number;
  end?: number;
  attributes: Attributes;
  links: Link[];
  error?: { type: string; message: string };
}

/** The walk over one journal. */
interface Walk {
  runId: string;
  options: RunSpansOptions;
  drafts: Draft[];
  /** The open model call, the open tool calls by call id, the open hand-offs by child run id. */
  chat?: Draft;
  tools: Map<string, Draft>;
  handoffs: Map<string, Draft>;
  /**
   * The conversation so far, from the model calls' appended messages (as `foldContext` folds it: a
   * fork's first call carries its whole context), each as its JSON text within the content limit,
   * and the system prompt (for content).
   */
  messages: string[];
  system: string;
  /** The content attributes' length limit. */
  limit: number;
}

const INSTRUMENTATION_SCOPE = { name: "framework", version: FRAMEWORK_VERSION };

function str(v: unknown): string | undefined {
  return typeof v === "string" ? v : undefined;
}

function num(v: unknown): number | undefined {
  return typeof v === "number" && Number.isFinite(v) ? v : undefined;
}

/** Attributes without the undefined values. */
function attrs(entries: Record<string, string | number | string[] | undefined>): Attributes {
  const out: Attributes = {};
  for (const [k, v] of Object.entries(entries)) if (v !== undefined) out[k] = v;
  return out;
}

/** A link to a span of another run's trace. */
function linkTo(runId: string, spanRun: string, key: string, type: LinkType): Link {
  return {
    context: {
      traceId: traceIdOf(runId),
      spanId: spanIdOf(spanRun, key),
      traceFlags: TraceFlags.SAMPLED,
    },
    attributes: { "framework.link.type": type, "framework.run.id": runId },
  };
}

/** The root's links: where the run came from (a hand-off, a fork, an approval's resume). */
function lineageLinks(runId: string, events: readonly JournalEvent[]): Link[] {
  const fork = events.find((e) => e.type === "fork_resumed")?.payload;
  const resumed = events.find((e) => e.type === "run_resumed")?.payload;
  const started = events.find((e) => e.type === "run_started")?.payload;
  const forkParent = str(fork?.parent_run_id);
  if (forkParent) return [linkTo(forkParent, forkParent, `chat:${num(fork?.at)}`, "fork")];
  const resumedParent = str(resumed?.parent_run_id);
  if (resumedParent) return [linkTo(resumedParent, resumedParent, "root", "resume")];
  const parent = str(started?.parent_run_id);
  // A delegated run: its parent's hand-off span has an id derived from this run's id.
  return parent ? [linkTo(parent, runId, "handoff", "delegation")] : [];
}

function openChat(w: Walk, e: JournalEvent, at: number): void {
  const model = (e.payload.model ?? {}) as { provider?: string; name?: string | null };
  if (w.options.captureContent) {
    for (const m of (e.payload.append as Message[] | undefined) ?? []) {
      w.messages.push(messageJson(conventionMessage(m), w.limit));
    }
  }
  const name = model.name ?? undefined;
  w.chat = {
    key: `chat:${e.seq}`,
    name: name ? `chat ${name}` : "chat",
    kind: SpanKind.CLIENT,
    parentKey: "root",
    start: at,
    attributes: attrs({
      "gen_ai.operation.name": "chat",
      "gen_ai.provider.name": model.provider,
      "gen_ai.request.model": name,
      "framework.turn": num(e.payload.turn),
      ...(w.options.captureContent
        ? {
          "gen_ai.input.messages": messagesJson(w.messages, w.limit),
          "gen_ai.system_instructions": systemInstructions(w.system, w.limit),
        }
        : {}),
    }),
    links: [],
  };
  w.drafts.push(w.chat);
}

function closeChat(w: Walk, e: JournalEvent, at: number): void {
  const chat = w.chat;
  if (!chat) return;
  w.chat = undefined;
  chat.end = at;
  const p = e.payload;
  const usage = (p.usage ?? {}) as { input_tokens?: number; output_tokens?: number };
  const finish = str(p.finish_reason);
  Object.assign(
    chat.attributes,
    attrs({
      "gen_ai.usage.input_tokens": num(usage.input_tokens),
      "gen_ai.usage.output_tokens": num(usage.output_tokens),
      "gen_ai.response.finish_reasons": finish ? [finish] : undefined,
      "framework.cost_usd": num(p.cost_usd),
    }),
  );
  if (w.options.captureContent) {
    const answer = assistantMessage(
      str(p.text) ?? "",
      (p.tool_calls as ToolCall[] | undefined) ?? [],
      finish,
    );
    chat.attributes["gen_ai.output.messages"] = messagesJson(
      [messageJson(answer, w.limit)],
      w.limit,
    );
  }
}

function openTool(w: Walk, e: JournalEvent, at: number): void {
  const name = str(e.payload.name) ?? "tool";
  const id = str(e.payload.id) ?? `seq:${e.seq}`;
  const draft: Draft = {
    key: `tool:${e.seq}`,
    name: `execute_tool ${name}`,
    kind: SpanKind.INTERNAL,
    parentKey: "root",
    start: at,
    attributes: attrs({
      "gen_ai.operation.name": "execute_tool",
      "gen_ai.tool.name": name,
      "gen_ai.tool.call.id": id,
      "gen_ai.tool.type": "function",
      "framework.turn": num(e.payload.turn),
      ...(w.options.captureContent
        ? {
          "gen_ai.tool.call.arguments": clipText(
            JSON.stringify(e.payload.arguments ?? {}),
            w.limit,
          ),
        }
        : {}),
    }),
    links: [],
  };
  w.tools.set(id, draft);
  w.drafts.push(draft);
}

function closeTool(w: Walk, e: JournalEvent, at: number): void {
  const id = str(e.payload.id) ?? "";
  const draft = w.tools.get(id);
  if (!draft) return;
  w.tools.delete(id);
  draft.end = at;
  const error = e.payload.error as { code?: string; message?: string } | undefined;
  if (e.payload.ok === false) {
    draft.error = { type: error?.code ?? "tool_error", message: error?.message ?? "" };
  }
  if (w.options.captureContent) {
    draft.attributes["gen_ai.tool.call.result"] = clipText(
      e.payload.ok === false
        ? `Error (${error?.code}): ${error?.message}`
        : str(e.payload.content) ?? "",
      w.limit,
    );
  }
}

function openHandoff(w: Walk, e: JournalEvent, at: number): void {
  const child = str(e.payload.child_run_id);
  const peer = str(e.payload.peer);
  const harness = str(e.payload.harness_id) ?? peer ?? "peer";
  // The delegate call that is handing over: the newest open tool call.
  const within = [...w.tools.values()].at(-1);
  const draft: Draft = {
    key: child ? "handoff" : `handoff:${e.seq}`,
    ...(child ? { idRun: child } : {}),
    name: `invoke_agent ${harness}`,
    kind: SpanKind.INTERNAL,
    parentKey: within?.key ?? "root",
    start: at,
    attributes: attrs({
      "gen_ai.operation.name": "invoke_agent",
      "gen_ai.agent.name": peer,
      "gen_ai.agent.id": harness,
      "framework.run.id": child,
      "framework.delegation.depth": num(e.payload.depth),
    }),
    links: child ? [linkTo(child, child, "root", "delegated_run")] : [],
  };
  w.handoffs.set(child ?? peer ?? "", draft);
  w.drafts.push(draft);
}

function closeHandoff(w: Walk, e: JournalEvent, at: number): void {
  const key = str(e.payload.child_run_id) ?? str(e.payload.peer) ?? "";
  const draft = w.handoffs.get(key);
  if (!draft) return;
  w.handoffs.delete(key);
  draft.end = at;
  const status = str(e.payload.status);
  Object.assign(
    draft.attributes,
    attrs({ "framework.run.status": status, "framework.run.cost_usd": num(e.payload.cost_usd) }),
  );
  if (status && status !== "success") draft.error = { type: status, message: status };
}

/** What each journal event adds to the spans. */
const STEPS: Record<string, (w: Walk, e: JournalEvent, at: number) => void> = {
  model_call: openChat,
  model_response: closeChat,
  tool_call: openTool,
  tool_result: closeTool,
  delegation_started: openHandoff,
  delegation_finished: closeHandoff,
  run_started: (w, e) => void (w.system = str(e.payload.system) ?? w.system),
  system_changed: (w, e) => void (w.system = str(e.payload.system) ?? w.system),
};

/** The root span's draft: the run itself. */
function rootDraft(w: Walk, events: readonly JournalEvent[], start: number, end: number): Draft {
  const started = events.find((e) => e.type === "run_started")?.payload ?? {};
  const finished = events.findLast((e) => e.type === "run_finished")?.payload;
  const harness = str(started.harness_id) ?? "harness";
  const status = str(finished?.status) ?? "unfinished";
  const error = finished?.error as { reason?: string; message?: string } | undefined;
  const one = (m: ConventionMessage) => messagesJson([messageJson(m, w.limit)], w.limit);
  const content = w.options.captureContent
    ? {
      "gen_ai.input.messages": one({
        role: "user",
        parts: [{ type: "text", content: str(started.input) ?? "" }],
      }),
      "gen_ai.output.messages": one({
        role: "assistant",
        parts: [{ type: "text", content: str(finished?.output) ?? "" }],
        finish_reason: status,
      }),
      "gen_ai.system_instructions": systemInstructions(str(started.system) ?? "", w.limit),
    }
    : {};
  return {
    key: "root",
    name: `invoke_agent ${harness}`,
    kind: SpanKind.INTERNAL,
    start,
    end,
    attributes: attrs({
      "gen_ai.operation.name": "invoke_agent",
      "gen_ai.agent.name": w.options.agentName,
      "gen_ai.agent.id": harness,
      "gen_ai.conversation.id": str(started.thread_id),
      "framework.run.id": w.runId,
      "framework.run.status": status,
      "framework.run.cost_usd": num(finished?.cost_usd),
      "framework.run.turns": num(finished?.turns),
      "framework.spec_version": str(started.spec_version),
      ...content,
    }),
    links: lineageLinks(w.runId, events),
    ...(status === "success"
      ? {}
      : { error: { type: error?.reason ?? status, message: error?.message ?? status } }),
  };
}

/** A settled draft as the SDK's span record. */
function readable(w: Walk, d: Draft, fallbackEnd: number): ReadableSpan {
  const traceId = traceIdOf(w.runId);
  const startTime = millisToHrTime(d.start);
  const endTime = millisToHrTime(Math.max(d.start, d.end ?? fallbackEnd));
  const attributes = d.error ? { ...d.attributes, "error.type": d.error.type } : d.attributes;
  return {
    name: d.name,
    kind: d.kind,
    spanContext: () => ({
      traceId,
      spanId: spanIdOf(d.idRun ?? w.runId, d.key),
      traceFlags: TraceFlags.SAMPLED,
    }),
    ...(d.parentKey
      ? {
        parentSpanContext: {
          traceId,
          spanId: spanIdOf(w.runId, d.parentKey),
          traceFlags: TraceFlags.SAMPLED,
        },
      }
      : {}),
    startTime,
    endTime,
    duration: hrTimeDuration(startTime, endTime),
    status: d.error
      ? { code: SpanStatusCode.ERROR, message: d.error.message }
      : { code: d.end === undefined ? SpanStatusCode.ERROR : SpanStatusCode.UNSET },
    attributes,
    links: d.links,
    events: [],
    ended: true,
    resource: w.options.resource,
    instrumentationScope: INSTRUMENTATION_SCOPE,
    droppedAttributesCount: 0,
    droppedEventsCount: 0,
    droppedLinksCount: 0,
  };
}

/**
 * The spans of one run, built from its journal: the root first, then the others in the order they
 * started. A model call, tool call or hand-off the journal never saw finish ends with the run, as an
 * error.
 *
 * @example
 * ```ts
 * import { resourceFromAttributes } from "@opentelemetry/resources";
 * import { parseJournal } from "../journal/verify.ts";
 *
 * const events = parseJournal(await Deno.readFile(".framework/traces/run_01….jsonl"));
 * const spans = runSpans(events, {
 *   agentName: "Support bot",
 *   captureContent: false,
 *   resource: resourceFromAttributes({ "service.name": "framework" }),
 * });
 * spans[0]!.name; // "invoke_agent support-bot"
 * ```
 * @param events The run's journal, in order.
 * @param options The agent's name, content capture, the resource.
 * @returns The spans (none for an empty journal).
 */
export function runSpans(
  events: readonly JournalEvent[],
  options: RunSpansOptions,
): ReadableSpan[] {
  const started = events.find((e) => e.type === "run_started");
  const runId = str(started?.payload.run_id);
  if (!runId) return [];
  const w: Walk = {
    runId,
    options,
    drafts: [],
    tools: new Map(),
    handoffs: new Map(),
    messages: [],
    system: "",
    limit: options.contentLimit ?? DEFAULT_CONTENT_LIMIT,
  };
  for (const e of events) STEPS[e.type]?.(w, e, Date.parse(e.ts));
  const start = Date.parse(events[0]!.ts);
  const end = Date.parse(events.at(-1)!.ts);
  const root = rootDraft(w, events, start, end);
  return [root, ...w.drafts].map((d) => readable(w, d, end));
}
