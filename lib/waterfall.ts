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
  const start = events.length ? Date.parse(events[0]!.ts) : NaN;
  const spans: WaterfallSpan[] = [];
  const tools = new Map<string, WaterfallSpan>();
  const approvals = new Map<string, WaterfallSpan>();
  const handOffs = new Map<string, WaterfallSpan>();
  let model: WaterfallSpan | null = null;
  let run: WaterfallSpan | null = null;
  let replay: WaterfallSpan | null = null;
  let delegateCalls = 0;
  let at = 0;
  const open = (e: TimedEvent, kind: SpanKind, label: string, depth = 1): WaterfallSpan => {
    const span: WaterfallSpan = {
      id: `${kind}:${e.seq}`,
      kind,
      type: e.type,
      seq: e.seq,
      end_seq: null,
      label,
      start_ms: at,
      end_ms: null,
      depth,
      tokens: null,
      cost_usd: null,
      ok: null,
      child: null,
      events: 0,
    };
    spans.push(span);
    return span;
  };
  const close = (span: WaterfallSpan, e: TimedEvent) => {
    span.end_seq = e.seq;
    span.end_ms = at;
  };
  for (const e of events) {
    const p = e.payload;
    const t = Date.parse(e.ts);
    at = Number.isFinite(t) ? Math.max(at, t - start) : at;
    if (replay && e.type !== "replayed") replay = null;
    switch (e.type) {
      case "run_started":
        run = open(e, "run", "run", 0);
        break;
      case "fork_resumed":
        replay = open(e, "replayed", "replayed prefix");
        close(replay, e);
        break;
      case "replayed":
        if (replay) {
          replay.events++;
          replay.label = `replayed prefix · ${replay.events} events`;
          close(replay, e);
        }
        break;
      case "model_call":
        model = open(e, "model", modelLabel(p));
        break;
      case "model_response":
        if (model) {
          close(model, e);
          const u = p.usage as { input_tokens?: unknown; output_tokens?: unknown } | undefined;
          if (u) model.tokens = { input: num(u.input_tokens), output: num(u.output_tokens) };
          if (typeof p.cost_usd === "number") model.cost_usd = p.cost_usd;
          model.ok = true;
          model = null;
        }
        break;
      case "tool_call": {
        const span = open(e, "tool", String(p.name ?? "tool"));
        tools.set(String(p.id), span);
        if (p.name === "delegate") delegateCalls++;
        break;
      }
      case "tool_result": {
        const span = tools.get(String(p.id));
        if (span) {
          close(span, e);
          span.ok = p.ok === true;
          tools.delete(String(p.id));
          if (span.label === "delegate") delegateCalls = Math.max(0, delegateCalls - 1);
        }
        break;
      }
      case "approval_requested":
        approvals.set(
          String(p.approval_id),
          open(e, "approval", `approval of ${String(p.tool ?? "a tool")}`),
        );
        break;
      case "approval_decided": {
        const span = approvals.get(String(p.approval_id));
        if (span) {
          close(span, e);
          span.ok = p.decision === "approved";
          approvals.delete(String(p.approval_id));
        }
        break;
      }
      case "delegation_started": {
        const span = open(e, "delegation", `→ ${String(p.peer ?? "peer")}`, delegateCalls ? 2 : 1);
        span.child = {
          run_id: String(p.child_run_id),
          harness_id: typeof p.harness_id === "string" ? p.harness_id : null,
        };
        handOffs.set(String(p.child_run_id), span);
        break;
      }
      case "delegation_finished": {
        const span = handOffs.get(String(p.child_run_id));
        if (span) {
          close(span, e);
          span.ok = p.status === "success";
          if (typeof p.cost_usd === "number") span.cost_usd = p.cost_usd;
          handOffs.delete(String(p.child_run_id));
        }
        break;
      }
      case "run_finished":
        if (run) {
          close(run, e);
          run.ok = p.status === "success";
          if (typeof p.cost_usd === "number") run.cost_usd = p.cost_usd;
        }
        // What the run left open ends with it (a call cut short by an error or a stop).
        for (const s of [model, ...tools.values(), ...approvals.values(), ...handOffs.values()]) {
          if (s && s.end_ms === null) {
            close(s, e);
            s.ok = false;
          }
        }
        model = null;
        tools.clear();
        approvals.clear();
        handOffs.clear();
        break;
    }
  }
  return { start, end_ms: at, spans };
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
