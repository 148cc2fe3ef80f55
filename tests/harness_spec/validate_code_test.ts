/**
 * `validateHarness` over code refs (tools, hooks, validators, guardrails, playbook gates): a missing
 * module, a missing export, an export that is not a function, a module that does not load, a path out
 * of the folder or inside `.framework/`, each reported at its dotted path with a line and column; in a
 * trusted folder (code is loaded in the sandbox) and in an untrusted one (nothing runs). Also through
 * the real `framework validate --json`.
 *
 * @module
 */

import assert from "node:assert/strict";
import type { SpecIssue } from "../../lib/harness_spec/issues.ts";
import { validateHarness, type ValidationResult } from "../../lib/validate/validate.ts";
import { trustFolder } from "../../lib/trust/store.ts";
import { runCli } from "../helpers/cli.ts";
import { type Json, jsonOk } from "../helpers/cli_assert.ts";
import { tempDir, tempHome } from "../helpers/temp.ts";
import { pathExists } from "../../lib/fs/exists.ts";

/** A spec with one broken code ref of each kind, and one valid ref (`tools.3.code`). */
const BROKEN_SPEC = `id: refs
model:
  provider: scripted
  replies:
    - text: hi
tools:
  - builtin: file_read
  - code: tools/missing.ts#lookup
  - code: .framework/hidden.ts#hidden
  - code: tools/ok.ts#ok
hooks:
  - code: hooks/h.ts#absent
    on: run_end
verify:
  validators:
    - code: checks/c.ts#notFn
guardrails:
  - code: guards/broken.ts#broken
playbooks:
  - name: careful
    on_enter: ../outside.ts#enter
`;

/** The modules of {@link BROKEN_SPEC}; `tools/ok.ts` leaves a mark when it is loaded. */
const FILES: Record<string, string> = {
  "tools/ok.ts": `await Deno.writeTextFile("workspace/loaded.txt", "ok.ts was loaded");
export function ok() {
  return "ok";
}
`,
  ".framework/hidden.ts": "export function hidden() {\n  return 1;\n}\n",
  "hooks/h.ts": "export function present() {}\n",
  "checks/c.ts": "export const notFn = 42;\nexport function other() {}\n",
  "guards/broken.ts": "export function broken( {\n  return ;\n",
  "workspace/.keep": "",
};

/** `validateHarness` (its sandbox is gone when it returns). */
function validate(dir: string, options?: { code?: boolean }): Promise<ValidationResult> {
  return validateHarness(dir, options);
}

async function writeFiles(dir: string, files: Record<string, string>): Promise<void> {
  for (const [rel, content] of Object.entries(files)) {
    const path = `${dir}/${rel}`;
    await Deno.mkdir(path.slice(0, path.lastIndexOf("/")), { recursive: true });
    await Deno.writeTextFile(path, content);
  }
}

/** A harness folder `<root>/<name>` with this spec text and files; returns its real path. */
async function makeHarness(
  root: string,
  name: string,
  specText: string,
  files: Record<string, string>,
): Promise<string> {
  const dir = `${root}/${name}`;
  await Deno.mkdir(dir, { recursive: true });
  await Deno.writeTextFile(`${dir}/harness.yaml`, specText);
  await writeFiles(dir, files);
  return await Deno.realPath(dir);
}

/** The 1-based line and column where `ref` is written in the spec text. */
function where(specText: string, ref: string): { line: number; column: number } {
  const lines = specText.split("\n");
  const index = lines.findIndex((l) => l.includes(ref));
  assert.ok(index >= 0, `${ref} is in the spec`);
  return { line: index + 1, column: lines[index]!.indexOf(ref) + 1 };
}

/** The one issue at a path. */
function issueAt(issues: SpecIssue[], path: string): SpecIssue {
  const found = issues.filter((i) => i.path === path);
  assert.equal(found.length, 1, `one issue at ${path}: ${JSON.stringify(issues, null, 2)}`);
  return found[0]!;
}

/** Asserts an issue's path, severity, message and position. */
function assertIssue(
  issues: SpecIssue[],
  path: string,
  severity: "error" | "warning",
  message: RegExp,
  ref: string,
): void {
  const issue = issueAt(issues, path);
  assert.equal(issue.severity, severity, `${path}: ${issue.message}`);
  assert.match(issue.message, message, path);
  assert.deepEqual(
    { line: issue.line, column: issue.column },
    where(BROKEN_SPEC, ref),
    `${path} points at its ref`,
  );
}

Deno.test("validateHarness() reports every broken code ref at its dotted path, line and column: in an untrusted folder without running code, in a trusted one by loading it", async (t) => {
  await using _home = await tempHome();
  await using tmp = await tempDir();
  await Deno.writeTextFile(`${tmp.path}/outside.ts`, "export function enter() {}\n");
  const dir = await makeHarness(tmp.path, "refs", BROKEN_SPEC, FILES);

  await t.step(
    "untrusted: nothing runs; missing modules and exports are still errors",
    async () => {
      const r = await validate(dir);
      assert.equal(r.valid, false);
      assert.equal(r.id, "refs");
      assert.equal(r.spec_version, undefined);
      assert.equal(await pathExists(`${dir}/workspace/loaded.txt`), false, "no module was loaded");
      assertIssue(
        r.issues,
        "tools.1.code",
        "error",
        /^Module not found: tools\/missing\.ts/,
        "tools/missing.ts#lookup",
      );
      assertIssue(
        r.issues,
        "tools.2.code",
        "error",
        /\.framework/,
        ".framework/hidden.ts#hidden",
      );
      assertIssue(
        r.issues,
        "hooks.0.code",
        "error",
        /^hooks\/h\.ts does not export "absent"$/,
        "hooks/h.ts#absent",
      );
      assertIssue(
        r.issues,
        "playbooks.0.on_enter",
        "error",
        /escapes the harness folder/,
        "../outside.ts#enter",
      );
      // what only loading can tell is a warning that the folder is not trusted
      for (
        const [path, ref] of [
          ["tools.3.code", "tools/ok.ts#ok"],
          ["verify.validators.0.code", "checks/c.ts#notFn"],
          ["guardrails.0.code", "guards/broken.ts#broken"],
        ]
      ) {
        assertIssue(r.issues, path!, "warning", /not trusted/, ref!);
      }
      assert.equal(r.issues.length, 7, JSON.stringify(r.issues, null, 2));
    },
  );

  await t.step("issues are sorted by line", async () => {
    const r = await validate(dir);
    const lines = r.issues.map((i) => i.line!);
    assert.deepEqual(lines, [...lines].sort((a, b) => a - b));
  });

  await t.step("trusted: the modules are loaded, and what fails to load is an error", async () => {
    await trustFolder(dir);
    const r = await validate(dir);
    assert.equal(r.valid, false);
    assert.equal(
      await Deno.readTextFile(`${dir}/workspace/loaded.txt`),
      "ok.ts was loaded",
      "code is loaded in a trusted folder",
    );
    assertIssue(
      r.issues,
      "tools.1.code",
      "error",
      /^Module not found: tools\/missing\.ts/,
      "tools/missing.ts#lookup",
    );
    assertIssue(
      r.issues,
      "tools.2.code",
      "error",
      /\.framework/,
      ".framework/hidden.ts#hidden",
    );
    assertIssue(
      r.issues,
      "hooks.0.code",
      "error",
      /^hooks\/h\.ts does not export "absent"$/,
      "hooks/h.ts#absent",
    );
    assertIssue(
      r.issues,
      "verify.validators.0.code",
      "error",
      /^checks\/c\.ts exports "notFn" as number, not a function$/,
      "checks/c.ts#notFn",
    );
    assertIssue(
      r.issues,
      "guardrails.0.code",
      "error",
      /^Cannot load guards\/broken\.ts: /,
      "guards/broken.ts#broken",
    );
    assertIssue(
      r.issues,
      "playbooks.0.on_enter",
      "error",
      /escapes the harness folder/,
      "../outside.ts#enter",
    );
    assert.equal(r.issues.filter((i) => i.path === "tools.3.code").length, 0, "a valid ref");
    assert.equal(r.issues.length, 6, JSON.stringify(r.issues, null, 2));
    assert.ok(r.issues.every((i) => i.severity === "error"));
  });

  await t.step("code: false skips code refs", async () => {
    const r = await validate(dir, { code: false });
    assert.deepEqual(r.issues, []);
    assert.equal(r.valid, true);
  });
});

Deno.test("validateHarness() gives a valid code ref of every kind no issue when trusted, and only a not-trusted warning when untrusted", async (t) => {
  await using _home = await tempHome();
  await using tmp = await tempDir();
  const spec = `id: good
model:
  provider: scripted
  replies:
    - text: hi
tools:
  - code: code/all.ts#tool
hooks:
  - code: code/all.ts#hook
    on: run_start
verify:
  validators:
    - code: code/all.ts#validator
guardrails:
  - code: code/all.ts#guard
playbooks:
  - name: mode
    on_enter: code/all.ts#enter
    on_exit: code/all.ts#exit
`;
  const dir = await makeHarness(tmp.path, "good", spec, {
    "code/all.ts": [
      "export function tool() {}",
      "export async function hook() {}",
      "export const validator = () => true;",
      "export function guard() { return null; }",
      "function enterGate() { return true; }",
      "export { enterGate as enter };",
      "export function exit() { return true; }",
      "",
    ].join("\n"),
  });
  const paths = [
    "tools.0.code",
    "guardrails.0.code",
    "verify.validators.0.code",
    "hooks.0.code",
    "playbooks.0.on_enter",
    "playbooks.0.on_exit",
  ];

  await t.step("untrusted: valid, one not-trusted warning per ref", async () => {
    const r = await validate(dir);
    assert.equal(r.valid, true, JSON.stringify(r.issues));
    assert.match(r.spec_version!, /^[0-9a-f]{64}$/);
    assert.deepEqual(r.issues.map((i) => i.path).sort(), [...paths].sort());
    for (const i of r.issues) {
      assert.equal(i.severity, "warning");
      assert.match(i.message, /not loaded because the folder is not trusted/);
      assert.equal(typeof i.line, "number");
    }
  });

  await t.step("trusted: valid, no issue at all", async () => {
    await trustFolder(dir);
    const r = await validate(dir);
    assert.deepEqual(r.issues, []);
    assert.equal(r.valid, true);
    assert.equal(r.id, "good");
  });
});

Deno.test("framework validate --json exits 2 with valid false and the code-ref issues for a missing module and a missing export", async (t) => {
  await using home = await tempDir("fw-home-");
  await using tmp = await tempDir();
  const spec = `id: cli-refs
model:
  provider: scripted
  replies:
    - text: hi
tools:
  - code: tools/gone.ts#lookup
hooks:
  - code: hooks/h.ts#missing
    on: run_start
`;
  const dir = await makeHarness(tmp.path, "cli-refs", spec, {
    "hooks/h.ts": "export function present() {}\n",
  });
  const check = (data: Json) => {
    assert.equal(data.valid, false);
    assert.equal(data.id, "cli-refs");
    assert.deepEqual(data.issues, [
      {
        path: "tools.0.code",
        severity: "error",
        message: 'Module not found: tools/gone.ts (from "tools/gone.ts#lookup")',
        line: 7,
        column: 11,
      },
      {
        path: "hooks.0.code",
        severity: "error",
        message: 'hooks/h.ts does not export "missing"',
        line: 9,
        column: 11,
      },
    ]);
  };

  await t.step("untrusted folder", async () => {
    check(jsonOk(await runCli(["validate", dir, "--json"], { home: home.path }), 2));
  });

  await t.step("trusted folder", async () => {
    jsonOk(await runCli(["trust", dir, "--json"], { home: home.path }));
    check(jsonOk(await runCli(["validate", dir, "--json"], { home: home.path }), 2));
  });
});

Deno.test("validateHarness() loads a trusted module with its entry's permissions", async (t) => {
  await using _home = await tempHome();
  await using tmp = await tempDir();
  await Deno.mkdir(`${tmp.path}/shared`);
  await Deno.writeTextFile(`${tmp.path}/shared/lib.ts`, "export const X = 5;\n");
  const spec = `id: granted
model:
  provider: scripted
  replies:
    - text: hi
tools:
  - code: tools/lib_user.ts#useLib
    permissions:
      read: ["../shared"]
  - code: tools/env_user.ts#useEnv
    permissions:
      env: ["FW_VALIDATE_PROBE_KEY"]
`;
  const dir = await makeHarness(tmp.path, "granted", spec, {
    "tools/lib_user.ts":
      'import { X } from "../../shared/lib.ts";\nexport function useLib() {\n  return X;\n}\n',
    "tools/env_user.ts":
      'const KEY = Deno.env.get("FW_VALIDATE_PROBE_KEY");\nexport function useEnv() {\n  return KEY;\n}\n',
  });

  await t.step("untrusted: valid, with not-trusted warnings only", async () => {
    const r = await validate(dir);
    assert.equal(r.valid, true, JSON.stringify(r.issues));
    assert.ok(r.issues.every((i) => i.severity === "warning"));
  });

  await trustFolder(dir);
  await t.step({
    name: "trusted: a module that needs its grant to load is valid",
    fn: async () => {
      const r = await validate(dir);
      assert.deepEqual(r.issues, []);
      assert.equal(r.valid, true);
    },
  });
});

Deno.test("validateHarness() reports a module that does not load with a plain-text message", async (t) => {
  await using _home = await tempHome();
  await using tmp = await tempDir();
  const spec = `id: unloadable
model:
  provider: scripted
  replies:
    - text: hi
tools:
  - code: tools/t.ts#tool
`;
  const dir = await makeHarness(tmp.path, "unloadable", spec, {
    "tools/t.ts": 'import "../spec/not_there.ts";\nexport function tool() {}\n',
  });
  await trustFolder(dir);

  await t.step("an import that fails is a Cannot load error at the ref", async () => {
    const r = await validate(dir);
    assert.equal(r.valid, false);
    const issue = issueAt(r.issues, "tools.0.code");
    assert.equal(issue.severity, "error");
    assert.match(issue.message, /^Cannot load tools\/t\.ts: .*not_there\.ts/);
    assert.deepEqual([issue.line, issue.column], [7, 11]);
  });

  await t.step({
    name: "load errors are plain text, without ANSI escape sequences",
    fn: async () => {
      const r = await validate(dir);
      const issue = issueAt(r.issues, "tools.0.code");
      assert.equal(issue.message.includes("\u001b"), false, JSON.stringify(issue.message));
    },
  });
});
