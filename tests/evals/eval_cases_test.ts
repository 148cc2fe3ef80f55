/**
 * Adding a run to an eval set: the case is drafted from the run's journal (input, status, a check
 * of the output), spliced into the set's file with every comment and line kept, refused (with the
 * file untouched) for a clash, a bad input file, a bad set name or a broken set, serialized under the
 * harness lock, and runnable by `framework eval`. And `framework eval add` as a subprocess.
 *
 * @module
 */

import assert from "node:assert/strict";
import { join } from "node:path";
import { addEvalCase, evalCaseFromRun } from "../../lib/evals/eval_cases.ts";
import { runEval } from "../../lib/evals/run_eval.ts";
import { FrameworkError } from "../../lib/errors.ts";
import { openHive } from "../../lib/hive/open.ts";
import { findRun } from "../../lib/journal/trace.ts";
import { createRunService, startRun } from "../../lib/runs/service.ts";
import { parseEvalSetText } from "../../lib/harness_spec/eval_set.ts";
import { trustFolder } from "../../lib/trust/store.ts";
import { runCli } from "../helpers/cli.ts";
import { jsonError, jsonOk } from "../helpers/cli_assert.ts";
import { writeHarness } from "../helpers/harness.ts";
import { tempDir, tempHome } from "../helpers/temp.ts";

const SMOKE = `# Smoke cases: every version must pass these.
description: The basics
cases:
  - id: greet # the first thing people type
    input: hello
    expect: [{ builtin: contains, text: Hi }]

  # Arithmetic, kept short.
  - id: sum
    input: add 2 and 3
    expect:
      - builtin: contains
        text: "5"
`;

const SPEC = {
  model: {
    provider: "scripted",
    scenarios: [
      { match: "^hello", replies: [{ text: "Hi!" }] },
      { match: "^add", replies: [{ text: "5" }] },
      { match: "^Where", replies: [{ text: "Your order ships on Monday.\nAnything else?" }] },
    ],
  },
};

function kind(k: string, message?: RegExp) {
  return (err: unknown) =>
    err instanceof FrameworkError && err.kind === k && (!message || message.test(err.message));
}

Deno.test("addEvalCase(): a run becomes a case; the set's bytes are kept; refusals write nothing", async (t) => {
  await using _home = await tempHome();
  await using root = await tempDir();
  const dir = await writeHarness(root.path, "shop", SPEC, {
    "evals/smoke.yaml": SMOKE,
    "evals/broken.yaml": "cases: [\n",
    "inputs/order.txt": "Where is order 7?\n",
    ".env": "SECRET=1\n",
  });
  await trustFolder(dir);
  const db = openHive();
  const run = await startRun(dir, { input: "Where is my order?" });
  assert.equal((await run.result).status, "success");
  const smoke = join(dir, "evals/smoke.yaml");

  let draft!: Awaited<ReturnType<typeof evalCaseFromRun>>;
  await t.step(
    "evalCaseFromRun() drafts the input, the status and a check of the output",
    async () => {
      draft = await evalCaseFromRun(db, findRun(db, null, run.run_id));
      assert.deepEqual(draft.sets, ["broken", "smoke"]);
      assert.deepEqual(draft.case, {
        id: "where-is-my-order",
        input: "Where is my order?",
        status: "success",
        expect: [{ builtin: "contains", text: "Your order ships on Monday." }],
      });
    },
  );

  await t.step("the case is appended; every line of the set stays as it was", async () => {
    const added = await addEvalCase(dir, "smoke", draft.case);
    assert.equal(added.path, "evals/smoke.yaml");
    assert.equal(added.created_set, false);
    assert.equal(added.harness_id, "shop");
    const after = await Deno.readTextFile(smoke);
    assert.ok(after.startsWith(SMOKE), `the old text is kept byte for byte:\n${after}`);
    assert.equal(
      after.slice(SMOKE.length),
      [
        "  - id: where-is-my-order",
        "    input: Where is my order?",
        "    expect:",
        "      - builtin: contains",
        "        text: Your order ships on Monday.",
        "",
      ].join("\n"),
    );
    const set = parseEvalSetText(after).set!;
    assert.deepEqual(set.cases.map((c) => c.id), ["greet", "sum", "where-is-my-order"]);
  });

  await t.step("the id is new to every set on the next draft", async () => {
    const again = await evalCaseFromRun(db, findRun(db, null, run.run_id));
    assert.equal(again.case.id, "where-is-my-order-2");
  });

  await t.step("refusals leave every file as it was", async () => {
    const before = await Deno.readTextFile(smoke);
    const refuse = async (set: string, value: unknown, k: string, message: RegExp) => {
      await assert.rejects(addEvalCase(dir, set, value), kind(k, message));
      assert.equal(await Deno.readTextFile(smoke), before);
    };
    await refuse("smoke", draft.case, "conflict", /already has a case "where-is-my-order"/);
    await refuse("smoke", { id: "x", input_file: ".env" }, "bad_input", /Refused path/);
    await refuse("smoke", { id: "x", input_file: "../shop/.env" }, "bad_input", /Refused path/);
    await refuse("smoke", { id: "x", input_file: ".framework/trust.json" }, "bad_input", /Refused/);
    await refuse("smoke", { id: "bad id", input: "x" }, "bad_input", /"id": expected a case id/);
    await refuse("smoke", { id: "x" }, "bad_input", /needs `input`/);
    await refuse("smoke", { id: "x", input: "x", status: "fine" }, "bad_input", /"status"/);
    await refuse(
      "smoke",
      { id: "x", input: "x", expect: [{ builtin: "no_such" }] },
      "bad_input",
      /expect/,
    );
    await refuse("smoke", { id: "x", input: "x", extra: 1 }, "bad_input", /Invalid eval case/);
    await refuse("../escape", { id: "x", input: "x" }, "bad_input", /eval set's name/);
    await refuse("Smoke", { id: "x", input: "x" }, "bad_input", /eval set's name/);
    const broken = await Deno.readTextFile(join(dir, "evals/broken.yaml"));
    await assert.rejects(
      addEvalCase(dir, "broken", { id: "x", input: "x" }),
      kind("bad_input", /evals\/broken\.yaml has problems/),
    );
    assert.equal(await Deno.readTextFile(join(dir, "evals/broken.yaml")), broken);
    assert.deepEqual(
      (await Array.fromAsync(Deno.readDir(join(dir, "evals")))).map((e) => e.name).sort(),
      ["broken.yaml", "smoke.yaml"],
    );
  });

  await t.step(
    "a new name makes a new set; an input file of the harness is kept as a path",
    async () => {
      const added = await addEvalCase(dir, "orders", {
        id: "from-file",
        input_file: "./inputs/order.txt",
        status: "success",
      });
      assert.equal(added.created_set, true);
      assert.deepEqual(added.case, { id: "from-file", input_file: "inputs/order.txt" });
      const text = await Deno.readTextFile(join(dir, "evals/orders.yaml"));
      assert.match(text, /^# Eval set "orders" of shop/);
      assert.deepEqual(parseEvalSetText(text).set?.cases, [
        { id: "from-file", input_file: "inputs/order.txt" },
      ]);
    },
  );

  await t.step("adds made at once are serialized: none is lost", async () => {
    await Promise.all(
      [1, 2, 3, 4, 5].map((n) => addEvalCase(dir, "smoke", { id: `c${n}`, input: "hello" })),
    );
    const set = parseEvalSetText(await Deno.readTextFile(smoke)).set!;
    assert.deepEqual(set.cases.map((c) => c.id).slice(3).sort(), ["c1", "c2", "c3", "c4", "c5"]);
    assert.equal(
      (await Array.fromAsync(Deno.readDir(join(dir, "evals")))).filter((e) =>
        e.name.includes(".tmp")
      ).length,
      0,
    );
  });

  await t.step("the added cases run and pass with framework's eval", async () => {
    const result = await runEval(db, createRunService(), dir, { set: "smoke" });
    assert.equal(result.cases.length, 8);
    assert.ok(result.cases.every((c) => c.passed), JSON.stringify(result.cases));
  });
});

Deno.test("framework eval add: from a run, with options, and its refusals", async () => {
  await using home = await tempDir("fw-evadd-home-");
  await using cwd = await tempDir("fw-evadd-cwd-");
  const cli = (args: string[]) => runCli(args, { home: home.path, cwd: cwd.path });
  await writeHarness(cwd.path, "shop", SPEC, { "evals/smoke.yaml": SMOKE });
  const run = jsonOk(await cli(["run", "shop", "--input", "hello", "--approve", "--json"]));

  const added = jsonOk(
    await cli(["eval", "add", "shop", "--from-run", run.run_id, "--set", "smoke", "--json"]),
  );
  assert.deepEqual(added.case, {
    id: "hello",
    input: "hello",
    expect: [{ builtin: "contains", text: "Hi!" }],
  });
  // The eval's own options still belong to it, and the new case runs.
  const evaluated = jsonOk(await cli(["eval", "shop", "--set", "smoke", "--json"]));
  assert.deepEqual(evaluated.cases.map((c: { case_id: string }) => c.case_id), [
    "greet",
    "sum",
    "hello",
  ]);

  const human = await cli([
    "eval",
    "add",
    "shop",
    "--from-run",
    run.run_id,
    "--set",
    "regressions",
    "--id",
    "strict",
    "--status",
    "verify_failed",
    "--contains",
    "Hi",
    "--expect",
    '{"builtin": "max_length", "max": 10}',
  ]);
  assert.equal(human.code, 0, human.stderr);
  assert.match(human.stdout, /Added case "strict" to evals\/regressions\.yaml \(a new set\)/);
  const regressions = await Deno.readTextFile(join(cwd.path, "shop/evals/regressions.yaml"));
  assert.deepEqual(parseEvalSetText(regressions).set?.cases, [{
    id: "strict",
    input: "hello",
    status: "verify_failed",
    expect: [{ builtin: "contains", text: "Hi" }, { builtin: "max_length", max: 10 }],
  }]);

  const before = await Deno.readTextFile(join(cwd.path, "shop/evals/smoke.yaml"));
  const clash = jsonError(
    await cli([
      "eval",
      "add",
      "shop",
      "--from-run",
      run.run_id,
      "--set",
      "smoke",
      "--id",
      "greet",
      "--json",
    ]),
    "conflict",
    2,
  );
  assert.match(clash.message, /already has a case "greet"/);
  jsonError(
    await cli(["eval", "add", "shop", "--set", "smoke", "--input", "x", "--json"]),
    "bad_input",
    2,
  );
  jsonError(
    await cli(["eval", "add", "shop", "--set", "smoke", "--id", "y", "--expect", "{", "--json"]),
    "bad_input",
    2,
  );
  jsonError(
    await cli([
      "eval",
      "add",
      "shop",
      "--from-run",
      "run_01ZZZZZZZZZZZZZZZZZZZZZZZZ",
      "--set",
      "smoke",
      "--json",
    ]),
    "not_found",
    2,
  );
  assert.equal(await Deno.readTextFile(join(cwd.path, "shop/evals/smoke.yaml")), before);
});
