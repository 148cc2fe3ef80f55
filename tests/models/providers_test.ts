import assert from "node:assert/strict";
import { openHive } from "../../lib/hive/open.ts";
import { getRun } from "../../lib/hive/runs.ts";
import { parseJournal, verifyJournal } from "../../lib/journal/verify.ts";
import { startRun } from "../../lib/runs/service.ts";
import { type FakeLlm, startFakeLlm } from "../helpers/fake_llm.ts";
import { writeHarness } from "../helpers/harness.ts";
import { tempDir, tempHome } from "../helpers/temp.ts";
import { byId } from "../helpers/hive.ts";

const PRICING = { input_per_mtok: 3, output_per_mtok: 15 };

/** A harness whose model is a fake server, with a file tool and a key in its own .env. */
function harness(root: string, name: string, llm: FakeLlm, model: Record<string, unknown>) {
  return writeHarness(root, name, {
    model: {
      pricing: PRICING,
      api_key_env: "TEST_PROVIDER_KEY",
      ...model,
      base_url: `${llm.url}/v1`,
    },
    tools: [{ builtin: "file_read" }],
  }, { ".env": "TEST_PROVIDER_KEY=key-from-dotenv\n", "workspace/order.txt": "Order 42: shipped" });
}

const PROVIDERS = [
  { provider: "openai-compatible", stream: false },
  { provider: "openai-compatible", stream: true },
  { provider: "anthropic", stream: false },
  { provider: "anthropic", stream: true },
  { provider: "openai", stream: false },
] as const;

for (const { provider, stream } of PROVIDERS) {
  Deno.test(`${provider} provider${stream ? " (streaming)" : ""}: a tool-call round trip over HTTP with usage and cost`, async () => {
    await using _home = await tempHome();
    await using tmp = await tempDir();
    await using llm = await startFakeLlm();
    const dir = await harness(tmp.path, "shop", llm, {
      provider,
      name: "test-model",
      options: { stream },
    });
    llm.queue(
      {
        text: "Let me check.",
        tool_calls: [{
          id: "call_a",
          name: "file_read",
          arguments: { path: "workspace/order.txt" },
        }],
        usage: { input: 120, output: 30 },
      },
      { text: "Your order 42 has shipped.", usage: { input: 200, output: 12 } },
    );
    const run = await startRun(dir, { input: "Where is order 42?" });
    const result = await run.result;
    assert.equal(result.status, "success", JSON.stringify(result.error));
    assert.equal(result.output, "Your order 42 has shipped.");
    assert.equal(result.turns, 2);
    assert.equal(result.cost_usd, (320 * 3 + 42 * 15) / 1e6);

    assert.equal(llm.requests.length, 2);
    const [first, second] = llm.requests;
    const anthropic = provider === "anthropic";
    assert.equal(first!.path, anthropic ? "/v1/messages" : "/v1/chat/completions");
    assert.equal(first!.body.model, "test-model");
    assert.equal(!!first!.body.stream, stream);
    if (anthropic) assert.equal(first!.headers["x-api-key"], "key-from-dotenv");
    else assert.equal(first!.headers.authorization, "Bearer key-from-dotenv");
    const toolNames = (first!.body.tools as { name?: string; function?: { name: string } }[]).map((
      t,
    ) => t.name ?? t.function?.name);
    assert.deepEqual(toolNames, ["file_read"]);
    // The second request carries the tool result for the model's call id.
    const body = JSON.stringify(second!.body);
    assert.ok(body.includes("call_a"), "the tool call id is sent back");
    assert.ok(body.includes("Order 42: shipped"), "the tool result is sent back");

    const events = parseJournal(await Deno.readFile(run.trace_path));
    assert.equal(verifyJournal(await Deno.readFile(run.trace_path)).ok, true);
    const responses = events.filter((e) => e.type === "model_response").map((e) => e.payload);
    assert.deepEqual(responses.map((r) => r.usage), [{ input_tokens: 120, output_tokens: 30 }, {
      input_tokens: 200,
      output_tokens: 12,
    }]);
    assert.ok(responses.every((r) => r.usage_reported === true));
    assert.equal(
      events.find((e) => e.type === "tool_result")!.payload.content,
      "Order 42: shipped",
    );
    assert.equal(getRun(openHive(), byId("shop"), result.run_id)!.cost_usd, result.cost_usd);
  });
}

Deno.test("providers: a 429 is retried (honouring Retry-After) and the run then succeeds", async (t) => {
  await using _home = await tempHome();
  await using tmp = await tempDir();
  await using llm = await startFakeLlm();
  for (const provider of ["openai-compatible", "anthropic"]) {
    await t.step(provider, async () => {
      const dir = await harness(tmp.path, `retry-${provider}`, llm, { provider, name: "m" });
      llm.queue(
        {
          status: 429,
          headers: { "retry-after": "0" },
          body: { error: { message: "rate limited" } },
        },
        { status: 503, headers: { "retry-after": "0" } },
        { text: "fine now" },
      );
      const run = await startRun(dir, { input: "hi" });
      const result = await run.result;
      assert.equal(result.status, "success");
      assert.equal(result.output, "fine now");
      const retries = run.events.snapshot().filter((e) => e.type === "model_retry").map((e) =>
        e.payload.status
      );
      assert.deepEqual(retries, [429, 503]);
    });
  }
});

Deno.test("providers: a 401 ends the run with error at once, with a clear reason", async (t) => {
  await using _home = await tempHome();
  await using tmp = await tempDir();
  await using llm = await startFakeLlm();
  for (const provider of ["openai-compatible", "anthropic"]) {
    await t.step(provider, async () => {
      const before = llm.requests.length;
      const dir = await harness(tmp.path, `denied-${provider}`, llm, { provider, name: "m" });
      llm.queue({ status: 401, body: { error: { message: "Invalid API key" } } });
      const result = await (await startRun(dir, { input: "hi" })).result;
      assert.equal(result.status, "error");
      assert.equal(result.failure_signature, "error:provider:http_401");
      assert.match(result.error!.message, /HTTP 401: Invalid API key/);
      assert.equal(llm.requests.length - before, 1, "a 401 is not retried");
    });
  }
});

Deno.test("providers: retries are bounded by model.max_retries", async () => {
  await using _home = await tempHome();
  await using tmp = await tempDir();
  await using llm = await startFakeLlm();
  const dir = await harness(tmp.path, "bounded", llm, {
    provider: "openai-compatible",
    name: "m",
    max_retries: 2,
  });
  for (let i = 0; i < 5; i++) llm.queue({ status: 500, headers: { "retry-after": "0" } });
  const result = await (await startRun(dir, { input: "hi" })).result;
  assert.equal(result.failure_signature, "error:provider:http_500");
  assert.equal(llm.requests.length, 3, "one call and two retries");
});

Deno.test("providers: malformed replies, timeouts, unreachable servers and missing keys end with error", async (t) => {
  await using _home = await tempHome();
  await using tmp = await tempDir();
  await using llm = await startFakeLlm();
  await t.step("a reply that is not JSON", async () => {
    const dir = await harness(tmp.path, "malformed", llm, {
      provider: "openai-compatible",
      name: "m",
    });
    llm.queue({ raw: "<html>oops</html>" });
    const result = await (await startRun(dir, { input: "hi" })).result;
    assert.equal(result.failure_signature, "error:provider:malformed");
  });
  await t.step("a server that never answers in time", async () => {
    const slow = Deno.serve({ hostname: "127.0.0.1", port: 0, onListen: () => {} }, async (req) => {
      await req.body?.cancel();
      await new Promise((r) => setTimeout(r, 1200));
      return new Response("{}");
    });
    try {
      const dir = await writeHarness(tmp.path, "slow", {
        model: {
          provider: "openai-compatible",
          name: "m",
          base_url: `http://127.0.0.1:${slow.addr.port}/v1`,
          timeout_s: 0.3,
          max_retries: 0,
        },
      });
      const result = await (await startRun(dir, { input: "hi" })).result;
      assert.equal(result.failure_signature, "error:provider:timeout");
    } finally {
      await slow.shutdown();
    }
  });
  await t.step("an unreachable server", async () => {
    const probe = Deno.listen({ hostname: "127.0.0.1", port: 0 });
    const port = (probe.addr as Deno.NetAddr).port;
    probe.close();
    const dir = await writeHarness(tmp.path, "unreachable", {
      model: {
        provider: "openai-compatible",
        name: "m",
        base_url: `http://127.0.0.1:${port}/v1`,
        max_retries: 0,
      },
    });
    const result = await (await startRun(dir, { input: "hi" })).result;
    assert.equal(result.failure_signature, "error:provider:network");
  });
  await t.step("a missing key", async () => {
    const dir = await writeHarness(tmp.path, "nokey", {
      model: {
        provider: "anthropic",
        name: "m",
        base_url: `${llm.url}/v1`,
        api_key_env: "FRAMEWORK_TEST_MISSING_KEY",
      },
    });
    const result = await (await startRun(dir, { input: "hi" })).result;
    assert.equal(result.failure_signature, "error:provider:missing_key");
    assert.match(result.error!.message, /FRAMEWORK_TEST_MISSING_KEY/);
  });
});

Deno.test("providers: an unknown price costs 0 and is journalled as a warning", async () => {
  await using _home = await tempHome();
  await using tmp = await tempDir();
  await using llm = await startFakeLlm();
  const dir = await writeHarness(tmp.path, "unpriced", {
    model: { provider: "openai-compatible", name: "local-llama", base_url: `${llm.url}/v1` },
  });
  llm.queue({ text: "hi", usage: { input: 1000, output: 1000 } });
  const run = await startRun(dir, { input: "hi" });
  const result = await run.result;
  assert.equal(result.cost_usd, 0);
  const warning = run.events.snapshot().find((e) =>
    e.type === "warning" && e.payload.code === "unknown_price"
  );
  assert.ok(warning, "a warning event");
  assert.match(String(warning.payload.message), /Set model\.pricing/);
  assert.equal(
    llm.requests[0]!.headers.authorization,
    undefined,
    "no key is sent when none is configured",
  );
});

Deno.test("providers: a run with onText streams each reply as it comes, and the journal keeps the whole text", async (t) => {
  await using _home = await tempHome();
  await using tmp = await tempDir();
  await using llm = await startFakeLlm();
  for (const provider of ["openai-compatible", "anthropic"]) {
    await t.step(provider, async () => {
      const dir = await harness(tmp.path, `live-${provider}`, llm, { provider, name: "m" });
      llm.queue(
        {
          text: "Let me look that up.",
          tool_calls: [{ id: "c1", name: "file_read", arguments: { path: "workspace/order.txt" } }],
        },
        { text: "Your order 42 has shipped today." },
      );
      const before = llm.requests.length;
      const deltas: { turn: number; text: string }[] = [];
      const run = await startRun(dir, { input: "Where is 42?" }, {
        onText: (d) => deltas.push(d),
      });
      const result = await run.result;
      assert.equal(result.status, "success", JSON.stringify(result.error));
      // The provider streamed although the spec did not ask for it: someone was listening.
      assert.ok(llm.requests.slice(before).every((r) => r.body.stream === true));
      assert.ok(deltas.filter((d) => d.turn === 2).length > 1, "the reply came in pieces");
      const texts = run.events.snapshot().filter((e) => e.type === "model_response").map((e) =>
        e.payload
      );
      for (const r of texts) {
        const live = deltas.filter((d) => d.turn === r.turn).map((d) => d.text).join("");
        assert.equal(live, r.text);
      }
      assert.equal(texts.at(-1)!.text, "Your order 42 has shipped today.");
    });
  }
});

Deno.test("scripted provider: onText gives the reply in word-sized pieces that add up to it", async () => {
  await using _home = await tempHome();
  await using tmp = await tempDir();
  const dir = await writeHarness(tmp.path, "words", {
    model: { provider: "scripted", replies: [{ text: "One two  three." }] },
  });
  const pieces: string[] = [];
  const result = await (await startRun(dir, { input: "x" }, { onText: (d) => pieces.push(d.text) }))
    .result;
  assert.equal(result.output, "One two  three.");
  assert.deepEqual(pieces, ["One ", "two  ", "three."]);
});
