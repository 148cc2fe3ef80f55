/**
 * A finished run exported as one OpenTelemetry trace, received by a local OTLP receiver that decodes
 * with the official OTLP definitions: span names, parentage, the GenAI attributes and the journal's
 * times for a run with two model calls and a tool call; a delegated run as its own trace linked both
 * ways to the hand-off span; message content only when asked, and then redacted; http/json as well as
 * http/protobuf; the same trace and span ids on every export.
 *
 * @module
 */

import assert from "node:assert/strict";
import { openHive } from "../../lib/hive/open.ts";
import type { JournalEvent } from "../../lib/journal/event.ts";
import { parseJournal } from "../../lib/journal/verify.ts";
import { type EnvReader, otlpConfigFor } from "../../lib/otel/config.ts";
import { exportRunTrace } from "../../lib/otel/export_run.ts";
import { spanIdOf, traceIdOf } from "../../lib/otel/ids.ts";
import { forkRun, resumeFork } from "../../lib/runs/forks.ts";
import { createRunService, startRun } from "../../lib/runs/service.ts";
import { trustFolder } from "../../lib/trust/store.ts";
import { scripted, writeHarness } from "../helpers/harness.ts";
import { type ReceivedSpan, startOtlpReceiver } from "../helpers/otlp_receiver.ts";
import { tempDir, tempHome } from "../helpers/temp.ts";

const NO_ENV: EnvReader = () => undefined;
const SPAN_KIND_INTERNAL = 1;
const SPAN_KIND_CLIENT = 3;
const STATUS_ERROR = 2;

/** Nanoseconds since the epoch of a journal timestamp. */
const ns = (ts: string) => BigInt(Date.parse(ts)) * 1_000_000n;

const CONTENT_KEYS = [
  "gen_ai.input.messages",
  "gen_ai.output.messages",
  "gen_ai.system_instructions",
  "gen_ai.tool.call.arguments",
  "gen_ai.tool.call.result",
];

function byName(spans: ReceivedSpan[], name: string): ReceivedSpan[] {
  return spans.filter((s) => s.name === name);
}

async function journal(path: string): Promise<JournalEvent[]> {
  return parseJournal(await Deno.readFile(path));
}

Deno.test("exportRunTrace(): two model calls and a tool call as GenAI spans with the journal's times", async () => {
  await using _home = await tempHome();
  await using root = await tempDir();
  await using receiver = startOtlpReceiver();
  const dir = await writeHarness(root.path, "reader", {
    name: "Note reader",
    model: scripted([
      {
        tool_calls: [{ name: "file_read", arguments: { path: "workspace/n.txt" } }],
        usage: { input_tokens: 1000, output_tokens: 100 },
      },
      { text: "The note says hi.", usage: { input_tokens: 2000, output_tokens: 50 } },
    ], { pricing: { input_per_mtok: 1, output_per_mtok: 2 } }),
    tools: [{ builtin: "file_read" }],
  }, { "workspace/n.txt": "hi" });
  const run = await startRun(dir, { input: "read it" });
  const result = await run.result;
  assert.equal(result.status, "success");
  const events = await journal(run.trace_path);
  const at = (type: string, nth = 0) => events.filter((e) => e.type === type)[nth]!;

  const sent = await exportRunTrace(
    openHive(),
    null,
    run.run_id,
    otlpConfigFor(receiver.url, NO_ENV),
  );
  assert.deepEqual(sent, {
    run_id: run.run_id,
    trace_id: traceIdOf(run.run_id),
    spans: 4,
    endpoint: `${receiver.url}/v1/traces`,
  });
  const spans = await receiver.waitFor((s) => s.length === 4);
  assert.equal(receiver.requests[0]!.contentType, "application/x-protobuf");
  assert.deepEqual(spans.map((s) => s.name).sort(), [
    "chat test-script",
    "chat test-script",
    "execute_tool file_read",
    "invoke_agent reader",
  ]);
  for (const s of spans) assert.equal(s.traceId, sent.trace_id);
  assert.equal(spans[0]!.resource["service.name"], "framework");

  await t_root(spans, run.run_id, result.cost_usd, events);
  const [first, second] = byName(spans, "chat test-script").sort((a, b) =>
    Number(a.startTimeUnixNano - b.startTimeUnixNano)
  );
  const rootId = byName(spans, "invoke_agent reader")[0]!.spanId;
  for (
    const [chat, nth, usage, finish] of [
      [first!, 0, [1000, 100], "tool_calls"],
      [second!, 1, [2000, 50], "stop"],
    ] as const
  ) {
    assert.equal(chat.parentSpanId, rootId);
    assert.equal(chat.kind, SPAN_KIND_CLIENT);
    assert.equal(chat.startTimeUnixNano, ns(at("model_call", nth).ts));
    assert.equal(chat.endTimeUnixNano, ns(at("model_response", nth).ts));
    assert.deepEqual(chat.attributes, {
      "gen_ai.operation.name": "chat",
      "gen_ai.provider.name": "scripted",
      "gen_ai.request.model": "test-script",
      "gen_ai.usage.input_tokens": usage[0],
      "gen_ai.usage.output_tokens": usage[1],
      "gen_ai.response.finish_reasons": [finish],
      "framework.turn": nth + 1,
      "framework.cost_usd": at("model_response", nth).payload.cost_usd as number,
    });
  }
  const tool = byName(spans, "execute_tool file_read")[0]!;
  assert.equal(tool.parentSpanId, rootId);
  assert.equal(tool.kind, SPAN_KIND_INTERNAL);
  assert.equal(tool.startTimeUnixNano, ns(at("tool_call").ts));
  assert.equal(tool.endTimeUnixNano, ns(at("tool_result").ts));
  assert.deepEqual(tool.attributes, {
    "gen_ai.operation.name": "execute_tool",
    "gen_ai.tool.name": "file_read",
    "gen_ai.tool.call.id": at("tool_call").payload.id as string,
    "gen_ai.tool.type": "function",
    "framework.turn": 1,
  });

  // Exported again: the same trace, the same spans (a backend keeps one copy).
  await exportRunTrace(openHive(), null, run.run_id, otlpConfigFor(receiver.url, NO_ENV));
  const again = await receiver.waitFor((s) => s.length === 8);
  const ids = (list: ReceivedSpan[]) =>
    list.map((s) => `${s.traceId}/${s.spanId}/${s.parentSpanId}/${s.name}`).sort();
  assert.deepEqual(ids(again.slice(4)), ids(again.slice(0, 4)));
});

/** The root span: the run, from its first event to its last. */
function t_root(spans: ReceivedSpan[], runId: string, cost: number, events: JournalEvent[]) {
  const root = byName(spans, "invoke_agent reader")[0]!;
  assert.equal(root.parentSpanId, "");
  assert.equal(root.spanId, spanIdOf(runId, "root"));
  assert.equal(root.kind, SPAN_KIND_INTERNAL);
  assert.equal(root.startTimeUnixNano, ns(events[0]!.ts));
  assert.equal(root.endTimeUnixNano, ns(events.at(-1)!.ts));
  assert.deepEqual(root.links, []);
  assert.equal(root.status.code, 0);
  assert.deepEqual(root.attributes, {
    "gen_ai.operation.name": "invoke_agent",
    "gen_ai.agent.name": "Note reader",
    "gen_ai.agent.id": "reader",
    "framework.run.id": runId,
    "framework.run.status": "success",
    "framework.run.cost_usd": cost,
    "framework.run.turns": 2,
    "framework.spec_version": events[0]!.payload.spec_version as string,
  });
  for (const s of spans) {
    for (const key of CONTENT_KEYS) assert.equal(key in s.attributes, false, `${s.name}: ${key}`);
  }
}

Deno.test("exportRunTrace(): content only with the variable, redacted by logging.redact, over http/json", async () => {
  await using _home = await tempHome();
  await using root = await tempDir();
  await using receiver = startOtlpReceiver();
  const secret = "sk-SECRET123";
  const dir = await writeHarness(root.path, "keeper", {
    instructions: "Keep secrets.",
    model: scripted([
      { tool_calls: [{ name: "file_read", arguments: { path: `workspace/${secret}.txt` } }] },
      { text: `The key is ${secret}.` },
    ]),
    tools: [{ builtin: "file_read" }],
    logging: { redact: { patterns: ["sk-[A-Za-z0-9]+"] } },
  }, { [`workspace/${secret}.txt`]: `key ${secret}` });
  const run = await startRun(dir, { input: `Where is ${secret}?` });
  assert.equal((await run.result).status, "success");
  const env: EnvReader = (name) =>
    ({
      OTEL_INSTRUMENTATION_GENAI_CAPTURE_MESSAGE_CONTENT: "true",
      OTEL_EXPORTER_OTLP_PROTOCOL: "http/json",
      OTEL_SERVICE_NAME: "keeper-service",
    })[name];
  await exportRunTrace(openHive(), null, run.run_id, otlpConfigFor(receiver.url, env));
  const spans = await receiver.waitFor((s) => s.length === 4);
  assert.equal(receiver.requests[0]!.contentType, "application/json");
  assert.equal(spans[0]!.resource["service.name"], "keeper-service");
  for (const s of spans) assert.equal(s.traceId, traceIdOf(run.run_id));
  assert.doesNotMatch(JSON.stringify(spans.map((s) => s.attributes)), /SECRET123/);

  const rootSpan = byName(spans, "invoke_agent keeper")[0]!;
  assert.deepEqual(JSON.parse(rootSpan.attributes["gen_ai.input.messages"] as string), [
    { role: "user", parts: [{ type: "text", content: "Where is [REDACTED]?" }] },
  ]);
  assert.deepEqual(JSON.parse(rootSpan.attributes["gen_ai.output.messages"] as string), [
    {
      role: "assistant",
      parts: [{ type: "text", content: "The key is [REDACTED]." }],
      finish_reason: "success",
    },
  ]);
  const chats = byName(spans, "chat test-script").sort((a, b) =>
    Number(a.startTimeUnixNano - b.startTimeUnixNano)
  );
  assert.deepEqual(JSON.parse(chats[0]!.attributes["gen_ai.system_instructions"] as string), [
    { type: "text", content: "Keep secrets." },
  ]);
  const second = JSON.parse(chats[1]!.attributes["gen_ai.input.messages"] as string);
  assert.deepEqual(second.map((m: { role: string }) => m.role), ["user", "assistant", "tool"]);
  assert.equal(second[2].parts[0].type, "tool_call_response");
  assert.equal(second[2].parts[0].response, "key [REDACTED]");
  const tool = byName(spans, "execute_tool file_read")[0]!;
  assert.deepEqual(JSON.parse(tool.attributes["gen_ai.tool.call.arguments"] as string), {
    path: "workspace/[REDACTED].txt",
  });
  assert.equal(tool.attributes["gen_ai.tool.call.result"], "key [REDACTED]");
});

Deno.test("exportRunTrace(): a delegated run is its own trace, linked both ways to the hand-off span", async () => {
  await using _home = await tempHome();
  await using root = await tempDir();
  await using receiver = startOtlpReceiver();
  const helper = await writeHarness(root.path, "helper", {
    model: scripted([{ text: "12 refunds" }]),
  });
  const lead = await writeHarness(root.path, "lead", {
    model: scripted([
      { tool_calls: [{ name: "delegate", arguments: { task: "Count the refunds" } }] },
      { text: "There are 12." },
    ]),
    delegation: { peers: [{ name: "counter", harness: "../helper" }] },
  });
  for (const d of [helper, lead]) await trustFolder(d);
  const run = await startRun(lead, { input: "How many refunds?" });
  const result = await run.result;
  assert.equal(result.status, "success", JSON.stringify(result.error));
  const childId = result.delegations![0]!.run_id!;
  const config = otlpConfigFor(receiver.url, NO_ENV);
  await exportRunTrace(openHive(), null, run.run_id, config);
  await exportRunTrace(openHive(), null, childId, config);
  const spans = await receiver.waitFor((s) => s.length === 7);
  const parentTrace = spans.filter((s) => s.traceId === traceIdOf(run.run_id));
  const childTrace = spans.filter((s) => s.traceId === traceIdOf(childId));
  assert.deepEqual(parentTrace.map((s) => s.name).sort(), [
    "chat test-script",
    "chat test-script",
    "execute_tool delegate",
    "invoke_agent helper",
    "invoke_agent lead",
  ]);
  assert.deepEqual(childTrace.map((s) => s.name).sort(), [
    "chat test-script",
    "invoke_agent helper",
  ]);

  const delegate = byName(parentTrace, "execute_tool delegate")[0]!;
  const handoff = byName(parentTrace, "invoke_agent helper")[0]!;
  const childRoot = childTrace.find((s) => s.parentSpanId === "")!;
  assert.equal(handoff.parentSpanId, delegate.spanId);
  assert.equal(handoff.attributes["gen_ai.agent.name"], "counter");
  assert.equal(handoff.attributes["gen_ai.agent.id"], "helper");
  assert.equal(handoff.attributes["framework.run.id"], childId);
  assert.equal(handoff.attributes["framework.run.status"], "success");
  assert.deepEqual(handoff.links, [{
    traceId: childRoot.traceId,
    spanId: childRoot.spanId,
    attributes: { "framework.link.type": "delegated_run", "framework.run.id": childId },
  }]);
  assert.equal(childRoot.parentSpanId, "");
  assert.deepEqual(childRoot.links, [{
    traceId: handoff.traceId,
    spanId: handoff.spanId,
    attributes: { "framework.link.type": "delegation", "framework.run.id": run.run_id },
  }]);
  // Only the lead's own run is in error when a hand-off fails; here nothing is.
  for (const s of spans) assert.notEqual(s.status.code, STATUS_ERROR, s.name);
});

Deno.test("exportRunTrace(): a resumed fork links to its parent's model call it re-entered at", async () => {
  await using _home = await tempHome();
  await using root = await tempDir();
  await using receiver = startOtlpReceiver();
  const parentDir = await writeHarness(root.path, "origin", {
    model: scripted([
      { tool_calls: [{ name: "file_read", arguments: { path: "workspace/n.txt" } }] },
      { text: "origin done" },
    ]),
    tools: [{ builtin: "file_read" }],
  }, { "workspace/n.txt": "hi" });
  await trustFolder(parentDir);
  const parent = await startRun(parentDir, { input: "read it" });
  assert.equal((await parent.result).status, "success");
  const parentEvents = await journal(parent.trace_path);
  const at = parentEvents.filter((e) => e.type === "model_call")[1]!;
  const db = openHive();
  const fork = await forkRun(db, parent.run_id, {
    at: at.seq,
    name: "branch",
    model: { provider: "scripted", name: "fork-script", replies: [{ text: "the fork answers" }] },
  }, "test");
  const runs = createRunService();
  const resumed = await (await resumeFork(db, runs, fork.harness.root_path)).result;
  assert.equal(resumed.status, "success", JSON.stringify(resumed.error));
  await runs.close();
  const config = otlpConfigFor(receiver.url, NO_ENV);
  await exportRunTrace(db, null, parent.run_id, config);
  await exportRunTrace(db, null, resumed.run_id, config);
  const spans = await receiver.waitFor((s) => s.length === 6);
  const forkSpans = spans.filter((s) => s.traceId === traceIdOf(resumed.run_id));
  // The replayed prefix executed nothing: only the fork's own model call is a span.
  assert.deepEqual(forkSpans.map((s) => s.name).sort(), [
    "chat fork-script",
    "invoke_agent branch",
  ]);
  const forkRoot = forkSpans.find((s) => s.parentSpanId === "")!;
  // Found by its turn: the parent's two model calls may start within one millisecond.
  const reentered = spans.find((s) =>
    s.traceId === traceIdOf(parent.run_id) && s.name === "chat test-script" &&
    s.attributes["framework.turn"] === at.payload.turn
  )!;
  assert.equal(reentered.startTimeUnixNano, ns(at.ts));
  assert.deepEqual(forkRoot.links, [{
    traceId: reentered.traceId,
    spanId: reentered.spanId,
    attributes: { "framework.link.type": "fork", "framework.run.id": parent.run_id },
  }]);
});

Deno.test("exportRunTrace(): content stays within the attribute length limit, however long the run", async () => {
  await using _home = await tempHome();
  await using root = await tempDir();
  await using receiver = startOtlpReceiver();
  // Eight turns, each reading a 30 000-character file: the conversation grows to 240 000 characters,
  // and without a bound every chat span would carry all of it (the trace grows as the square).
  const reads = Array.from({ length: 8 }, (_, i) => ({
    tool_calls: [{ name: "file_read", arguments: { path: `workspace/f${i}.txt` } }],
  }));
  const files = Object.fromEntries(
    reads.map((_, i) => [`workspace/f${i}.txt`, `${i}`.repeat(29_990) + `<end of ${i}>`]),
  );
  const dir = await writeHarness(root.path, "big", {
    model: scripted([...reads, { text: "Done." }]),
    tools: [{ builtin: "file_read" }],
    limits: { max_turns: 20 },
  }, files);
  const run = await startRun(dir, { input: "read them all" });
  assert.equal((await run.result).status, "success");
  const longest = (spans: ReceivedSpan[]) =>
    Math.max(
      ...spans.flatMap((s) =>
        Object.values(s.attributes).map((v) => typeof v === "string" ? v.length : 0)
      ),
    );
  const chatsOf = (spans: ReceivedSpan[]) =>
    byName(spans, "chat test-script").sort((a, b) =>
      Number(a.startTimeUnixNano - b.startTimeUnixNano)
    );

  // The default bound.
  const content: EnvReader = (name) =>
    ({ OTEL_INSTRUMENTATION_GENAI_CAPTURE_MESSAGE_CONTENT: "true" })[name];
  await exportRunTrace(openHive(), null, run.run_id, otlpConfigFor(receiver.url, content));
  const spans = await receiver.waitFor((s) => s.length === 18);
  assert.ok(longest(spans) <= 32_768, `an attribute of ${longest(spans)} characters`);
  const last = JSON.parse(chatsOf(spans).at(-1)!.attributes["gen_ai.input.messages"] as string);
  // The newest messages are kept whole while they fit; the oldest are left out.
  assert.equal(last.at(-1).role, "tool");
  assert.match(last.at(-1).parts[0].response, /<end of 7>$/);
  assert.ok(last.length < 17, `${last.length} messages`);

  // A smaller one, from the standard variable: a message longer than it is clipped, and marked.
  const small: EnvReader = (name) =>
    ({
      OTEL_INSTRUMENTATION_GENAI_CAPTURE_MESSAGE_CONTENT: "true",
      OTEL_ATTRIBUTE_VALUE_LENGTH_LIMIT: "1000",
    })[name];
  await exportRunTrace(openHive(), null, run.run_id, otlpConfigFor(receiver.url, small));
  const clipped = (await receiver.waitFor((s) => s.length === 36)).slice(18);
  assert.ok(longest(clipped) <= 1000, `an attribute of ${longest(clipped)} characters`);
  const newest = JSON.parse(
    chatsOf(clipped).at(-1)!.attributes["gen_ai.input.messages"] as string,
  ).at(-1);
  assert.equal(newest.role, "tool");
  assert.match(newest.parts[0].response, /^7{100}.*… \[\d+ more characters\]$/);
  const tool = byName(clipped, "execute_tool file_read")[0]!;
  assert.match(tool.attributes["gen_ai.tool.call.result"] as string, /… \[\d+ more characters\]$/);
});
