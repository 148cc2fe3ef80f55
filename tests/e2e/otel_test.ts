/**
 * OpenTelemetry export through the real faces: `framework run` exports each finished run when the
 * `OTEL_EXPORTER_OTLP_*` variables say so (to a local receiver that decodes with the official OTLP
 * definitions), without message content by default; `framework trace <run_id> --otlp <endpoint>`
 * sends the same trace again; a control plane whose collector is dead (a closed port) still runs,
 * and counts the dropped trace in `/health` as `otel_dropped`.
 *
 * @module
 */

import assert from "node:assert/strict";
import { traceIdOf } from "../../lib/otel/ids.ts";
import { runCli } from "../helpers/cli.ts";
import { memberToken, startControlPlane } from "../helpers/control_plane.ts";
import { scripted, writeHarness } from "../helpers/harness.ts";
import { deadEndpoint, type ReceivedSpan, startOtlpReceiver } from "../helpers/otlp_receiver.ts";
import { tempHome } from "../helpers/temp.ts";

const READER = {
  name: "Note reader",
  model: scripted([
    { tool_calls: [{ name: "file_read", arguments: { path: "workspace/n.txt" } }] },
    { text: "The note says hi." },
  ]),
  tools: [{ builtin: "file_read" }],
};

const ids = (spans: ReceivedSpan[]) =>
  spans.map((s) => `${s.traceId}/${s.spanId}/${s.parentSpanId}/${s.name}`).sort();

Deno.test("framework run exports the finished run; trace --otlp sends the same trace again", async () => {
  await using home = await tempHome();
  await using receiver = startOtlpReceiver();
  const dir = await writeHarness(home.path, "reader", READER, { "workspace/n.txt": "hi" });
  const run = await runCli(["run", dir, "--input", "read it", "--approve", "--json"], {
    home: home.path,
    env: { OTEL_EXPORTER_OTLP_ENDPOINT: receiver.url },
  });
  assert.equal(run.code, 0, run.stderr);
  const runId = run.json().data.run_id as string;
  const first = await receiver.waitFor((s) => s.length === 4);
  assert.equal(receiver.requests[0]!.contentType, "application/x-protobuf");
  assert.deepEqual(first.map((s) => s.name).sort(), [
    "chat test-script",
    "chat test-script",
    "execute_tool file_read",
    "invoke_agent reader",
  ]);
  for (const s of first) {
    assert.equal(s.traceId, traceIdOf(runId));
    assert.equal(
      Object.keys(s.attributes).some((k) =>
        k.endsWith(".messages") || k.endsWith("_instructions") || k.endsWith(".arguments") ||
        k.endsWith(".result")
      ),
      false,
      `no content by default: ${JSON.stringify(s.attributes)}`,
    );
  }

  await t_reexport(home.path, runId, receiver.url, first, () => receiver.spans());
  const bad = await runCli(["trace", runId, "--otlp", "ftp://collector", "--json"], {
    home: home.path,
  });
  assert.equal(bad.code, 2);
  assert.match(bad.json().error!.message, /Invalid OTLP endpoint "ftp:\/\/collector"/);
  const none = await runCli(["trace", runId, "--otlp", "--json"], { home: home.path });
  assert.equal(none.code, 2);
  assert.match(none.json().error!.message, /No OTLP endpoint/);
});

/** `framework trace <run_id> --otlp <endpoint>`: the same trace id and the same spans. */
async function t_reexport(
  home: string,
  runId: string,
  url: string,
  first: ReceivedSpan[],
  spans: () => ReceivedSpan[],
) {
  const again = await runCli(["trace", runId, "--otlp", url, "--json"], { home });
  assert.equal(again.code, 0, again.stderr);
  assert.deepEqual(again.json().data, {
    run_id: runId,
    trace_id: traceIdOf(runId),
    spans: 4,
    endpoint: `${url}/v1/traces`,
  });
  assert.equal(spans().length, 8);
  assert.deepEqual(ids(spans().slice(4)), ids(first));
}

Deno.test("a dead collector: the control plane's runs work, and /health counts the dropped trace", async () => {
  await using home = await tempHome();
  const dir = await writeHarness(home.path, "reader", READER, { "workspace/n.txt": "hi" });
  const { token } = await memberToken(dir, home.path, "runner", ["run"]);
  await using server = await startControlPlane(dir, {
    home: home.path,
    env: { OTEL_EXPORTER_OTLP_ENDPOINT: deadEndpoint(), OTEL_EXPORTER_OTLP_TIMEOUT: "1000" },
  });
  const health = async () => (await (await fetch(`${server.url}/health`)).json()).data;
  assert.equal((await health()).otel_dropped, 0);
  for (let i = 0; i < 2; i++) {
    const res = await fetch(`${server.url}/run`, {
      method: "POST",
      headers: { authorization: `Bearer ${token}`, "content-type": "application/json" },
      body: JSON.stringify({ input: "read it" }),
    });
    const body = await res.json();
    assert.equal(res.status, 200, JSON.stringify(body));
    assert.equal(body.data.status, "success");
    assert.equal(body.data.output, "The note says hi.");
  }
  // The exports fail in the background (the exporter's retries are bounded by its timeout).
  const until = Date.now() + 30_000;
  let dropped = 0;
  while ((dropped = (await health()).otel_dropped) < 2 && Date.now() < until) {
    await new Promise((r) => setTimeout(r, 100));
  }
  assert.equal(dropped, 2);
  assert.equal(
    server.stderr().filter((l) => l.includes("OpenTelemetry export")).length,
    1,
    "the first drop is logged once, the others counted",
  );
});

Deno.test("framework serve exports each run it serves, over http/json when asked", async () => {
  await using home = await tempHome();
  await using receiver = startOtlpReceiver();
  const dir = await writeHarness(home.path, "reader", READER, { "workspace/n.txt": "hi" });
  const served = await runCli(["serve", dir, "--approve"], {
    home: home.path,
    stdin: '{"input":"read it"}\n',
    env: {
      OTEL_EXPORTER_OTLP_TRACES_ENDPOINT: `${receiver.url}/v1/traces`,
      OTEL_EXPORTER_OTLP_PROTOCOL: "http/json",
    },
  });
  assert.equal(served.code, 0, served.stderr);
  const result = served.stdout.trim().split("\n").map((l) => JSON.parse(l)).at(-1);
  assert.equal(result.frame, "run_result");
  const spans = await receiver.waitFor((s) => s.length === 4);
  assert.equal(receiver.requests[0]!.contentType, "application/json");
  for (const s of spans) assert.equal(s.traceId, traceIdOf(result.run_id));
});
