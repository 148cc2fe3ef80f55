/**
 * A run's journal as a waterfall: one span per model call, tool call, approval wait, hand-off to a
 * peer and replayed prefix, each placed on a time axis by the journal's own timestamps (a span runs
 * from the event that opens it to the event that closes it). Vocabulary shared by the Trace tab and
 * anyone reading a journal: a run still going has open spans, which grow as its events arrive.
 *
 * @module
 */

/** What a span stands for. */
export type SpanKind = "run" | "model" | "tool" | "approval" | "delegation" | "replayed";

/** One bar of the waterfall. */
export interface WaterfallSpan {
  /** Unique within the run: the kind and the opening event's seq. */
  id: string;
  kind: SpanKind;
  /** The type of the event that opens it (`model_call`, `tool_call`, `approval_requested`, …). */
  type: string;
  /** The event that opens it (the one a click selects). */
  seq: number;
  /** The event that closes it; null while it is open. */
  end_seq: number | null;
  /** A short name: the turn and model, the tool, the peer. */
  label: string;
  /** Milliseconds from the run's first event to the opening event. */
  start_ms: number;
  /** Milliseconds from the run's first event to the closing one; null while it is open. */
  end_ms: number | null;
  /** Nesting: 0 for the run, 1 for what the run did, 2 for a hand-off inside its `delegate` call. */
  depth: number;
  /** A model call's tokens. */
  tokens: { input: number; output: number } | null;
  /** A model call's or a hand-off's cost. */
  cost_usd: number | null;
  /** Whether it went well (a tool's `ok`, a hand-off's or the run's status); null while unknown. */
  ok: boolean | null;
  /** A hand-off's child run, and the harness that owns it. */
  child: { run_id: string; harness_id: string | null } | null;
  /** A replayed prefix: how many events it replays. */
  events: number;
}

/** A run's waterfall. */
export interface Waterfall {
  /** The first event's time (epoch ms); NaN without events. */
  start: number;
  /** Milliseconds from the first event to the last one. */
  end_ms: number;
  /** The spans in the order their opening events were written. */
  spans: WaterfallSpan[];
}

/** An event as far as {@link waterfallOf} reads it. */
export type TimedEvent = {
  seq: number;
  ts: string;
  type: string;
  payload: Record<string, unknown>;
};

/**
 * The waterfall of a run's events (any prefix of its journal): one pass, so 10,000 events take a
 * few milliseconds.
 *
 * @example
 * ```ts
 * const w = waterfallOf([
 *   { seq: 1, ts: "2025-01-01T00:00:00.000Z", type: "run_started", payload: {} },
 *   { seq: 2, ts: "2025-01-01T00:00:00.100Z", type: "model_call", payload: { turn: 1 } },
 *   { seq: 3, ts: "2025-01-01T00:00:01.100Z", type: "model_response", payload: { turn: 1 } },
 * ]);
 * w.spans[1]!.end_ms! - w.spans[1]!.start_ms; // 1000
 * ```
 * @param events The run's events in order.
 * @returns The spans.
 */
export function waterfallOf(events: readonly TimedEvent[]): Waterfall {
  const b: Builder = {
    start: events.length ? Date.parse(events[0]!.ts) : NaN,
    at: 0,
    spans: [],
    tools: new Map(),
    approvals: new Map(),
    handOffs: new Map(),
    model: null,
    run: null,
    replay: null,
    delegateCalls: 0,
  };
  for (const e of events) {
    const t = Date.parse(e.ts);
    b.at = Number.isFinite(t) ? Math.max(b.at, t - b.start) : b.at;
    if (b.replay && e.type !== "replayed") b.replay = null;
    if (!openOrCloseCall(b, e)) openOrCloseOther(b, e);
  }
  return { start: b.start, end_ms: b.at, spans: b.spans };
}

/** What {@link waterfallOf} holds while it reads: the spans so far and those still open. */
interface Builder {
  start: number;
  /** The current event's time, ms since the first. */
  at: number;
  spans: WaterfallSpan[];
  tools: Map<string, WaterfallSpan>;
  approvals: Map<string, WaterfallSpan>;
  handOffs: Map<string, WaterfallSpan>;
  model: WaterfallSpan | null;
  run: WaterfallSpan | null;
  replay: WaterfallSpan | null;
  /** `delegate` tool calls still open (a hand-off inside one nests under it). */
  delegateCalls: number;
}

function open(b: Builder, e: TimedEvent, kind: SpanKind, label: string, depth = 1): WaterfallSpan {
  const span: WaterfallSpan = {
    id: `${kind}:${e.seq}`,
    kind,
    type: e.type,
    seq: e.seq,
    end_seq: null,
    label,
    start_ms: b.at,
    end_ms: null,
    depth,
    tokens: null,
    cost_usd: null,
    ok: null,
    child: null,
    events: 0,
  };
  b.spans.push(span);
  return span;
}

function close(b: Builder, span: WaterfallSpan, e: TimedEvent): void {
  span.end_seq = e.seq;
  span.end_ms = b.at;
}

/** Model and tool calls: opened by the call, closed by its answer. False for other events. */
function openOrCloseCall(b: Builder, e: TimedEvent): boolean {
  const p = e.payload;
  switch (e.type) {
    case "model_call":
      b.model = open(b, e, "model", modelLabel(p));
      return true;
    case "model_response":
      if (b.model) {
        close(b, b.model, e);
        const u = p.usage as { input_tokens?: unknown; output_tokens?: unknown } | undefined;
        if (u) b.model.tokens = { input: num(u.input_tokens), output: num(u.output_tokens) };
        if (typeof p.cost_usd === "number") b.model.cost_usd = p.cost_usd;
        b.model.ok = true;
        b.model = null;
      }
      return true;
    case "tool_call":
      b.tools.set(String(p.id), open(b, e, "tool", String(p.name ?? "tool")));
      if (p.name === "delegate") b.delegateCalls++;
      return true;
    case "tool_result": {
      const span = b.tools.get(String(p.id));
      if (span) {
        close(b, span, e);
        span.ok = p.ok === true;
        b.tools.delete(String(p.id));
        if (span.label === "delegate") b.delegateCalls = Math.max(0, b.delegateCalls - 1);
      }
      return true;
    }
  }
  return false;
}

/** The run, a fork's replayed prefix, approval waits and hand-offs. */
function openOrCloseOther(b: Builder, e: TimedEvent): void {
  const p = e.payload;
  switch (e.type) {
    case "run_started":
      b.run = open(b, e, "run", "run", 0);
      break;
    case "fork_resumed":
      b.replay = open(b, e, "replayed", "replayed prefix");
      close(b, b.replay, e);
      break;
    case "replayed":
      if (b.replay) {
        b.replay.events++;
        b.replay.label = `replayed prefix · ${b.replay.events} events`;
        close(b, b.replay, e);
      }
      break;
    case "approval_requested":
      b.approvals.set(
        String(p.approval_id),
        open(b, e, "approval", `approval of ${String(p.tool ?? "a tool")}`),
      );
      break;
    case "approval_decided":
      closeKeyed(b, b.approvals, String(p.approval_id), e, p.decision === "approved");
      break;
    case "delegation_started": {
      const span = open(
        b,
        e,
        "delegation",
        `→ ${String(p.peer ?? "peer")}`,
        b.delegateCalls ? 2 : 1,
      );
      span.child = {
        run_id: String(p.child_run_id),
        harness_id: typeof p.harness_id === "string" ? p.harness_id : null,
      };
      b.handOffs.set(String(p.child_run_id), span);
      break;
    }
    case "delegation_finished": {
      const span = closeKeyed(b, b.handOffs, String(p.child_run_id), e, p.status === "success");
      if (span && typeof p.cost_usd === "number") span.cost_usd = p.cost_usd;
      break;
    }
    case "run_finished":
      endRun(b, e);
      break;
  }
}

function closeKeyed(
  b: Builder,
  pending: Map<string, WaterfallSpan>,
  key: string,
  e: TimedEvent,
  ok: boolean,
): WaterfallSpan | undefined {
  const span = pending.get(key);
  if (!span) return undefined;
  close(b, span, e);
  span.ok = ok;
  pending.delete(key);
  return span;
}

/** The run's end closes it, and what it left open (a call cut short by an error or a stop). */
function endRun(b: Builder, e: TimedEvent): void {
  const p = e.payload;
  if (b.run) {
    close(b, b.run, e);
    b.run.ok = p.status === "success";
    if (typeof p.cost_usd === "number") b.run.cost_usd = p.cost_usd;
  }
  for (const s of [b.model, ...b.tools.values(), ...b.approvals.values(), ...b.handOffs.values()]) {
    if (s && s.end_ms === null) {
      close(b, s, e);
      s.ok = false;
    }
  }
  b.model = null;
  b.tools.clear();
  b.approvals.clear();
  b.handOffs.clear();
}

/**
 * A span's duration: closing minus opening time, or up to `now` (ms since the run's first event)
 * while it is open.
 *
 * @param span The span.
 * @param now For an open span, the time to measure to (ms since the first event).
 * @returns Milliseconds.
 */
export function spanDuration(span: WaterfallSpan, now: number): number {
  return Math.max(0, (span.end_ms ?? Math.max(now, span.start_ms)) - span.start_ms);
}

function modelLabel(p: Record<string, unknown>): string {
  const m = p.model as { provider?: unknown; name?: unknown } | undefined;
  const name = m ? `${String(m.provider ?? "")}${m.name ? `:${String(m.name)}` : ""}` : "model";
  return `turn ${String(p.turn ?? "?")} · ${name}`;
}

function num(v: unknown): number {
  return typeof v === "number" && Number.isFinite(v) ? v : 0;
}
