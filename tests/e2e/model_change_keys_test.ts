/**
 * A model chosen at run time — a live model change, a fork's model override — sends a key only
 * where harness.yaml itself sends it: the provider, `base_url` and key variable must be a
 * combination harness.yaml uses together, the key resolved as the provider resolves it. The attack:
 * harness.yaml names a keyless local endpoint and uses OpenAI's key elsewhere; a request pairs the
 * two (`{provider: "openai", base_url: <the keyless endpoint>}`, or the endpoint with
 * `api_key_env: OPENAI_API_KEY`), so the OpenAI key would go to the keyless endpoint. Driven through
 * a real workbench process; the endpoint is a local listener that records every request's headers
 * and must never see the key.
 *
 * @module
 */

import assert from "node:assert/strict";
import { join } from "node:path";
import { startFakeLlm } from "../helpers/fake_llm.ts";
import { scripted, writeHarness } from "../helpers/harness.ts";
import { SseReader } from "../helpers/sse_reader.ts";
import { tempDir } from "../helpers/temp.ts";
import { startWorkbenchProcess, workbenchCall as call } from "../helpers/workbench.ts";

// deno-lint-ignore no-explicit-any
type Json = any;

const OPENAI_SECRET = "sk-openai-secret-never-sent-there";
const ANTHROPIC_SECRET = "sk-ant-secret-never-sent-there";

function assertRefused(res: { status: number; json: Json }, what: string) {
  assert.equal(res.status, 400, `${what}: ${JSON.stringify(res.json)}`);
  assert.equal(res.json.error.kind, "bad_input", what);
  assert.match(res.json.error.message, /is not one this harness names/, what);
  assert.match(res.json.error.message, /harness\.yaml uses together/, what);
}

Deno.test("model keys: a live change or a fork override never sends a key where harness.yaml does not", async () => {
  await using llm = await startFakeLlm();
  await using home = await tempDir("fw-mck-home-");
  await using cwd = await tempDir("fw-mck-cwd-");
  const local = `${llm.url}/v1`;
  await writeHarness(join(cwd.path, "harnesses"), "keyed", {
    model: scripted([
      { tool_calls: [{ name: "list_files", arguments: {} }], delay_ms: 1500 },
      { text: "scripted end" },
    ]),
    tools: [{ builtin: "list_files" }],
    playbooks: [
      { name: "draft", default: true, instructions: "Draft." },
      // A keyless local endpoint, named by harness.yaml.
      {
        name: "local",
        instructions: "Locally.",
        model: { provider: "openai-compatible", name: "llama", base_url: local },
      },
    ],
    // OpenAI's key is used, at OpenAI's own endpoint.
    evolution: { model: { provider: "openai", name: "gpt-4.1-mini" } },
  });
  await using wb = await startWorkbenchProcess({
    home: home.path,
    cwd: cwd.path,
    env: { OPENAI_API_KEY: OPENAI_SECRET, ANTHROPIC_API_KEY: ANTHROPIC_SECRET },
  });
  const attacks: [string, Json][] = [
    ["openai at the keyless endpoint", {
      provider: "openai",
      name: "gpt-4.1-mini",
      base_url: local,
    }],
    ["the keyless endpoint with OpenAI's key", {
      provider: "openai-compatible",
      name: "llama",
      base_url: local,
      api_key_env: "OPENAI_API_KEY",
    }],
    ["anthropic at the keyless endpoint", {
      provider: "anthropic",
      name: "claude-sonnet-4-5",
      base_url: `${local}/`,
    }],
    ["openai at the keyless endpoint, trailing slash", {
      provider: "openai",
      name: "gpt-4.1-mini",
      base_url: `${local}//`,
    }],
  ];

  const res = await fetch(`${wb.url}/api/harnesses/keyed/runs?stream=true`, {
    method: "POST",
    headers: { "content-type": "application/json" },
    body: JSON.stringify({ input: "Look around" }),
  });
  const sse = new SseReader(res);
  const [accepted] = await sse.until(() => true, "run_accepted");
  const runId: string = accepted!.data.run_id;
  await sse.until((f) => f.data?.type === "model_call", "the first model call");
  for (const [what, model] of attacks) {
    assertRefused(await call(wb, "POST", `/api/runs/${runId}/model`, { model }), what);
  }
  // The combination harness.yaml uses is accepted: the next model call goes to the endpoint, keyless.
  llm.queue({ text: "from the local model" });
  const allowed = await call(wb, "POST", `/api/runs/${runId}/model`, {
    model: { provider: "openai-compatible", name: "llama", base_url: local },
  });
  assert.equal(allowed.status, 200, JSON.stringify(allowed.json));
  const rest = await sse.rest();
  const result = rest.at(-1)!;
  assert.equal(result.event, "run_result");
  assert.equal(result.data.output, "from the local model", JSON.stringify(result.data));

  // A fork's model override follows the same rule; a refused fork leaves no folder.
  const view = (await call(wb, "GET", `/api/runs/${runId}`)).json.data;
  const at = view.events.filter((e: Json) => e.type === "model_call")[0].seq;
  for (const [what, model] of attacks) {
    assertRefused(
      await call(wb, "POST", `/api/runs/${runId}/fork`, { at, name: "leaky", model }),
      `fork: ${what}`,
    );
  }
  const folders = (await Array.fromAsync(Deno.readDir(join(cwd.path, "harnesses"))))
    .map((e) => e.name);
  assert.deepEqual(folders, ["keyed"], "no refused fork left a folder");
  const fork = await call(wb, "POST", `/api/runs/${runId}/fork`, {
    at,
    name: "keyed-local",
    model: { provider: "openai-compatible", name: "llama", base_url: local },
  });
  assert.equal(fork.status, 201, JSON.stringify(fork.json));
  llm.queue({ text: "the fork, locally" });
  const resumed = await fetch(`${wb.url}/api/harnesses/keyed-local/resume?stream=true`, {
    method: "POST",
    headers: { "content-type": "application/json" },
    body: "{}",
  });
  const frames = await new SseReader(resumed).rest();
  assert.equal(frames.at(-1)!.data.output, "the fork, locally", JSON.stringify(frames.at(-1)));

  assert.equal(llm.requests.length, 2, "the endpoint got the two allowed calls");
  for (const r of llm.requests) {
    const headers = JSON.stringify(r.headers);
    assert.ok(!headers.includes(OPENAI_SECRET), `the OpenAI key reached the endpoint: ${headers}`);
    assert.ok(!headers.includes(ANTHROPIC_SECRET), `the Anthropic key reached it: ${headers}`);
    assert.equal(r.headers.authorization, undefined, "a keyless endpoint gets no Authorization");
  }
});
