import assert from "node:assert/strict";
import { checkTraceDir, traceDirProblem } from "../../lib/journal/trace_dir.ts";
import { FrameworkError } from "../../lib/errors.ts";
import { validateHarness } from "../../lib/validate/validate.ts";
import { memberToken, startControlPlane } from "../helpers/control_plane.ts";
import { scripted, writeHarness } from "../helpers/harness.ts";
import { tempDir, tempHome } from "../helpers/temp.ts";

Deno.test("traceDirProblem() refuses files, sensitive places and the harness itself", async (t) => {
  await using home = await tempHome();
  await using root = await tempDir();
  const dir = await writeHarness(root.path, "h", { model: scripted([{ text: "ok" }]) }, {
    "notes.txt": "x",
  });
  await Deno.mkdir(`${home.path}/keys`, { recursive: true });
  await Deno.symlink(`${dir}/workspace`, `${dir}/ws-link`);
  const cases: [string, RegExp | undefined][] = [
    ["harness.yaml", /is a file/],
    ["notes.txt/traces", /a part of its path is a file/],
    [".env.d/traces", /\.env/],
    ["logs/.ENV/traces", /\.env/],
    [".", /harness folder or contains it/],
    ["..", /harness folder or contains it/],
    ["workspace/traces", /workspace/],
    ["ws-link/traces", /workspace/],
    [`${home.path}/keys/traces`, /key folder/],
    ["logs/traces", undefined],
    [".framework/traces", undefined],
    [`${root.path}/elsewhere`, undefined],
  ];
  for (const [value, want] of cases) {
    await t.step(value, async () => {
      const problem = await traceDirProblem(dir, value);
      if (want) assert.match(problem ?? "", want);
      else assert.equal(problem, undefined);
    });
  }
  assert.equal(await traceDirProblem(dir, undefined), undefined);
});

Deno.test("checkTraceDir() resolves the folder, creating nothing, or throws bad_input", async () => {
  await using _home = await tempHome();
  await using root = await tempDir();
  const dir = await writeHarness(root.path, "h", { model: scripted([{ text: "ok" }]) });
  assert.equal(await checkTraceDir(dir, "logs/traces"), `${dir}/logs/traces`);
  await assert.rejects(Deno.stat(`${dir}/logs`), Deno.errors.NotFound);
  await assert.rejects(
    () => checkTraceDir(dir, "harness.yaml"),
    (err: FrameworkError) =>
      err.kind === "bad_input" && err.details.path === "logging.trace_dir" &&
      /logging\.trace_dir is not usable/.test(err.message),
  );
});

Deno.test("validateHarness() reports an unusable logging.trace_dir with its line", async () => {
  await using _home = await tempHome();
  await using root = await tempDir();
  const dir = await writeHarness(root.path, "h", {
    model: scripted([{ text: "ok" }]),
    logging: { trace_dir: "harness.yaml" },
  });
  const result = await validateHarness(dir);
  assert.equal(result.valid, false);
  const issue = result.issues.find((i) => i.path === "logging.trace_dir");
  assert.ok(issue, JSON.stringify(result.issues));
  assert.equal(issue.severity, "error");
  assert.ok(issue.line && issue.line > 1);
});

Deno.test("control plane: a trace_dir that is a file answers 400 to every run, never 500", async () => {
  await using home = await tempDir();
  await using root = await tempDir();
  const dir = await writeHarness(root.path, "h", {
    model: scripted([{ text: "ok" }]),
    logging: { trace_dir: "harness.yaml" },
  });
  const { token } = await memberToken(dir, home.path, "runner", ["run", "read"]);
  await using plane = await startControlPlane(dir, {
    home: home.path,
    env: { FRAMEWORK_AUTHORIZED_KEYS: "" },
  });
  const headers = { authorization: `Bearer ${token}`, "content-type": "application/json" };
  for (let i = 0; i < 3; i++) {
    const res = await fetch(`${plane.url}/run`, {
      method: "POST",
      headers,
      body: JSON.stringify({ input: "hi" }),
    });
    const body = await res.json();
    assert.equal(res.status, 400, JSON.stringify(body));
    assert.equal(body.error.kind, "bad_input");
    assert.match(body.error.message, /logging\.trace_dir/);
  }
  const validate = await fetch(`${plane.url}/validate`, { method: "POST", headers });
  const v = await validate.json();
  assert.equal(v.data.valid, false);
  assert.ok(v.data.issues.some((i: { path: string }) => i.path === "logging.trace_dir"));
  const stats = await (await fetch(`${plane.url}/stats`, { headers })).json();
  assert.equal(stats.data.runs.total, 0, "nothing was recorded");
});
