import assert from "node:assert/strict";
import { openHive } from "../../lib/hive/open.ts";
import { getRun } from "../../lib/hive/runs.ts";
import { CLI_PATH } from "../helpers/cli.ts";
import { memberToken, readSse, startControlPlane } from "../helpers/control_plane.ts";
import { scripted, writeHarness } from "../helpers/harness.ts";
import { tempDir, tempHome } from "../helpers/temp.ts";
import { byId } from "../helpers/hive.ts";

function auth(token: string): HeadersInit {
  return { authorization: `Bearer ${token}` };
}

async function harness(root: string, delayMs = 0): Promise<string> {
  return await writeHarness(root, "streamer", {
    model: scripted([
      { tool_calls: [{ name: "list_files", arguments: {} }], delay_ms: delayMs },
      { text: "Listed the files.", delay_ms: delayMs },
    ]),
    tools: [{ builtin: "list_files" }],
  });
}

Deno.test("POST /run?stream=true: run_accepted, every journal event in order, run_result matching /trace and the hive", async () => {
  await using home = await tempHome();
  await using tmp = await tempDir();
  const dir = await harness(tmp.path);
  await using server = await startControlPlane(dir, { home: home.path });
  const { token } = await memberToken(dir, home.path, "streamer", ["run", "read"]);

  const res = await fetch(`${server.url}/run?stream=true`, {
    method: "POST",
    headers: { ...auth(token), "content-type": "application/json" },
    body: JSON.stringify({ input: "list" }),
  });
  assert.equal(res.status, 200);
  assert.match(res.headers.get("content-type")!, /^text\/event-stream/);
  const frames = await readSse(res);
  assert.equal(frames[0]!.event, "run_accepted");
  const runId = frames[0]!.data.run_id;
  assert.match(runId, /^run_[0-9A-Z]{26}$/);
  const last = frames.at(-1)!;
  assert.equal(last.event, "run_result");
  const traces = frames.slice(1, -1);
  assert.ok(traces.every((f) => f.event === "trace"));
  assert.deepEqual(
    traces.map((f) => f.data.seq),
    traces.map((_, i) => i + 1),
    "every event, in seq order",
  );
  assert.deepEqual(
    traces.map((f) => f.id),
    traces.map((f) => String(f.data.seq)),
    "id: is the seq",
  );
  assert.equal(traces[0]!.data.type, "run_started");
  assert.equal(traces.at(-1)!.data.type, "run_finished");
  for (const t of traces) {
    assert.deepEqual(Object.keys(t.data).sort(), ["hash", "payload", "seq", "ts", "type"]);
  }

  const trace = await (await fetch(`${server.url}/trace/${runId}`, { headers: auth(token) }))
    .json();
  assert.equal(trace.ok, true);
  assert.deepEqual(trace.data.integrity, { ok: true, checked: traces.length, broken_at: null });
  assert.deepEqual(
    trace.data.events.map((e: { hash: string }) => e.hash),
    traces.map((f) => f.data.hash),
  );
  assert.deepEqual(
    last.data,
    trace.data.events.at(-1).payload,
    "run_result is the run_finished payload",
  );
  const row = getRun(openHive(), byId("streamer"), runId)!;
  assert.equal(row.status, last.data.status);
  assert.equal(row.head_hash, traces.at(-1)!.data.hash);
  assert.equal(row.turns, last.data.turns);
  assert.equal(row.cost_usd, last.data.cost_usd);
});

Deno.test("GET /runs/{id}/events resumes a stream after Last-Event-ID, live and finished", async (t) => {
  await using home = await tempHome();
  await using tmp = await tempDir();
  const dir = await harness(tmp.path, 400);
  await using server = await startControlPlane(dir, { home: home.path });
  const { token } = await memberToken(dir, home.path, "reader", ["run", "read"]);

  // Start a slow streaming run and drop the connection after the first trace frames.
  const controller = new AbortController();
  const res = await fetch(`${server.url}/run?stream=true`, {
    method: "POST",
    headers: auth(token),
    body: JSON.stringify({ input: "list" }),
    signal: controller.signal,
  });
  const reader = res.body!.getReader();
  let seen = "";
  while (!/id: 2\n/.test(seen)) seen += new TextDecoder().decode((await reader.read()).value);
  controller.abort();
  await reader.cancel().catch(() => {});
  const runId = /"run_id":"(run_[0-9A-Z]{26})"/.exec(seen)![1]!;

  await t.step("while the run is live", async () => {
    const resumed = await fetch(`${server.url}/runs/${runId}/events`, {
      headers: { ...auth(token), "last-event-id": "2" },
    });
    assert.equal(resumed.status, 200);
    const frames = await readSse(resumed);
    assert.equal(frames[0]!.event, "run_accepted");
    const traces = frames.filter((f) => f.event === "trace");
    assert.equal(traces[0]!.data.seq, 3, "it resumes right after the last event the client had");
    assert.deepEqual(traces.map((f) => f.data.seq), traces.map((_, i) => i + 3));
    assert.equal(frames.at(-1)!.event, "run_result");
    assert.equal(frames.at(-1)!.data.status, "success", "the disconnected run finished");
  });

  await t.step("after the run finished, from the journal", async () => {
    const all = await readSse(
      await fetch(`${server.url}/runs/${runId}/events`, { headers: auth(token) }),
    );
    const traces = all.filter((f) => f.event === "trace");
    assert.equal(traces[0]!.data.seq, 1);
    assert.equal(traces.at(-1)!.data.type, "run_finished");
    const tail = await readSse(
      await fetch(`${server.url}/runs/${runId}/events?last_event_id=${traces.length - 1}`, {
        headers: auth(token),
      }),
    );
    assert.deepEqual(tail.map((f) => f.event), ["run_accepted", "trace", "run_result"]);
    assert.equal(tail[1]!.data.type, "run_finished");
    assert.deepEqual(tail[2]!.data, traces.at(-1)!.data.payload);
  });

  await t.step("unknown and foreign runs are 404, a read scope is needed", async () => {
    const unknown = await fetch(`${server.url}/runs/run_00000000000000000000000000/events`, {
      headers: auth(token),
    });
    assert.equal(unknown.status, 404);
    assert.equal((await unknown.json()).error.kind, "not_found");
    const other = await writeHarness(tmp.path, "other", { model: scripted([{ text: "x" }]) });
    const cli = await new Deno.Command(Deno.execPath(), {
      args: ["run", "-A", "--quiet", CLI_PATH, "run", other, "--input", "x", "--approve", "--json"],
      env: { FRAMEWORK_HOME: home.path },
      stdout: "piped",
      stderr: "null",
    }).output();
    const foreign = JSON.parse(new TextDecoder().decode(cli.stdout)).data.run_id;
    const res404 = await fetch(`${server.url}/runs/${foreign}/events`, { headers: auth(token) });
    assert.equal(res404.status, 404);
    await res404.body?.cancel();
    const { token: runOnly } = await memberToken(dir, home.path, "runner", ["run"]);
    const forbidden = await fetch(`${server.url}/runs/${runId}/events`, { headers: auth(runOnly) });
    assert.equal(forbidden.status, 403);
    await forbidden.body?.cancel();
  });
});

Deno.test("a failing streamed run still ends with run_result status error", async () => {
  await using home = await tempHome();
  await using tmp = await tempDir();
  const dir = await writeHarness(tmp.path, "failing", {
    model: scripted([{ error: { status: 500, message: "upstream down" } }], { max_retries: 0 }),
  });
  await using server = await startControlPlane(dir, { home: home.path });
  const { token } = await memberToken(dir, home.path, "m", ["run"]);
  const frames = await readSse(
    await fetch(`${server.url}/run?stream=true`, {
      method: "POST",
      headers: auth(token),
      body: '{"input":"x"}',
    }),
  );
  assert.equal(frames[0]!.event, "run_accepted");
  assert.equal(frames.at(-1)!.event, "run_result");
  assert.equal(frames.at(-1)!.data.status, "error");
  assert.equal(frames.at(-1)!.data.failure_signature, "error:provider:http_500");
});

Deno.test("control-plane refuses an untrusted folder without a TTY and never binds", async () => {
  await using home = await tempHome();
  await using tmp = await tempDir();
  const dir = await harness(tmp.path);
  const probe = Deno.listen({ hostname: "127.0.0.1", port: 0 });
  const port = (probe.addr as Deno.NetAddr).port;
  probe.close();
  const out = await new Deno.Command(Deno.execPath(), {
    args: [
      "run",
      "-A",
      "--quiet",
      CLI_PATH,
      "control-plane",
      dir,
      "--port",
      String(port),
      "--json",
    ],
    env: { FRAMEWORK_HOME: home.path },
    stdin: "null",
    stdout: "piped",
    stderr: "piped",
  }).output();
  assert.equal(out.code, 4);
  const doc = JSON.parse(new TextDecoder().decode(out.stdout));
  assert.equal(doc.ok, false);
  assert.equal(doc.error.kind, "untrusted");
  assert.match(doc.error.message, /--approve/);
  // Nothing listens on the port it was asked to use.
  const listener = Deno.listen({ hostname: "127.0.0.1", port });
  listener.close();
});

Deno.test("control-plane warns loudly when it binds beyond loopback", async () => {
  await using home = await tempHome();
  await using tmp = await tempDir();
  const dir = await harness(tmp.path);
  await using server = await startControlPlane(dir, {
    home: home.path,
    args: ["--host", "0.0.0.0"],
  });
  const res = await fetch(server.url.replace("0.0.0.0", "127.0.0.1") + "/health");
  assert.equal(res.status, 200);
  await res.body?.cancel();
  const stderr = server.stderr().join("\n");
  assert.match(stderr, /WARNING: the control plane is listening on 0\.0\.0\.0/);
  assert.match(stderr, /no TLS/);
  assert.match(stderr, /reverse proxy or a tunnel/);
});
