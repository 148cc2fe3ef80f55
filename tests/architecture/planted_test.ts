/**
 * Each architecture rule fails when it should: every test copies this checkout's sources into a
 * temporary folder, plants one violation, and runs the rule's check on the copy. The copy is
 * otherwise this checkout, which tests/architecture_test.ts shows clean, so each check must answer
 * with exactly the planted problem.
 *
 * @module
 */

import assert from "node:assert/strict";
import { fileURLToPath } from "node:url";
import { copyTree } from "../../lib/fs/copy_tree.ts";
import { tempDir, writeFiles } from "../helpers/temp.ts";
import {
  checkFloorDiagram,
  checkFunctionLengths,
  checkLibImports,
  checkShells,
  checkUiImports,
} from "./checks.ts";
import { LONG_FUNCTIONS } from "./allowlists.ts";
import { floorOf, FLOORS } from "./floors.ts";

// The floors the plants below cross, read from the table (a floor added below them moves them).
const HIVE = floorOf("hive");
const RUNS = floorOf("runs");
const EVALS = floorOf("evals");
/** As the diagram prints a floor's number: two columns wide. */
const TOOLS = String(floorOf("tools")).padStart(2);

const ROOT = fileURLToPath(new URL("../../", import.meta.url));
/** What a copy holds: the sources, the config that resolves them, and the doc with the diagram. */
const COPIED = new Set([
  "lib",
  "routes",
  "cli",
  "ui",
  "cli.ts",
  "mod.ts",
  "server.ts",
  "deno.json",
  "deno.lock",
  "docs",
]);

/**
 * A temporary copy of this checkout's sources with files planted (new text, or an edit of the old).
 *
 * @param plants Paths relative to the root and their new text (or a function of their old text).
 * @returns The copy's root and its disposer.
 */
async function plantedCopy(
  plants: Record<string, string | ((old: string) => string)>,
): Promise<{ path: string } & AsyncDisposable> {
  const dir = await tempDir("fw-arch-");
  await copyTree(
    ROOT,
    dir.path,
    (e) => e.relative.includes("/") ? e.relative !== "ui/dist" : COPIED.has(e.relative),
  );
  const files: Record<string, string> = {};
  for (const [path, plant] of Object.entries(plants)) {
    if (typeof plant === "string") files[path] = plant;
    else {
      const old = await Deno.readTextFile(`${dir.path}/${path}`);
      const next = plant(old);
      assert.notEqual(next, old, `the plant in ${path} changed nothing`);
      files[path] = next;
    }
  }
  await writeFiles(dir.path, files);
  return dir;
}

Deno.test("a side-effect import up a floor fails, naming the file, the import and both floors", async () => {
  await using copy = await plantedCopy({ "lib/hive/x.ts": 'import "../runs/service.ts";\n' });
  assert.deepEqual(await checkLibImports(copy.path), [
    `lib/hive/x.ts:1 side-effect import "../runs/service.ts": lib/hive (floor ${HIVE}) may not import ` +
    `lib/runs (floor ${RUNS})`,
  ]);
});

Deno.test("a type-only import and a re-export up a floor fail too", async () => {
  await using copy = await plantedCopy({
    "lib/hive/x.ts": 'import type { RunOutcome } from "../runs/service.ts";\n' +
      'export * from "../evals/compare.ts";\nexport type X = RunOutcome;\n',
  });
  assert.deepEqual(await checkLibImports(copy.path), [
    `lib/hive/x.ts:1 import "../runs/service.ts": lib/hive (floor ${HIVE}) may not import lib/runs ` +
    `(floor ${RUNS})`,
    `lib/hive/x.ts:2 re-export "../evals/compare.ts": lib/hive (floor ${HIVE}) may not import ` +
    `lib/evals (floor ${EVALS})`,
  ]);
});

Deno.test("a dynamic import named by a template literal fails by the folders its prefix reaches", async () => {
  await using copy = await plantedCopy({
    "lib/hive/x.ts": "export function load(name: string): Promise<unknown> {\n" +
      "  return import(`../runs/${name}.ts`);\n}\n",
    "lib/hive/y.ts": "export function own(name: string): Promise<unknown> {\n" +
      "  return import(`./${name}.ts`);\n}\n",
  });
  assert.deepEqual(await checkLibImports(copy.path), [
    `lib/hive/x.ts:2 dynamic import \`../runs/\${name}.ts\`: lib/hive (floor ${HIVE}) may not import ` +
    `lib/runs (floor ${RUNS}), which the template literal can reach`,
  ]);
});

Deno.test("a template literal whose prefix reaches all of lib/ fails for every higher floor", async () => {
  await using copy = await plantedCopy({
    "lib/hive/x.ts": "export function load(name: string): Promise<unknown> {\n" +
      "  return import(`../${name}`);\n}\n",
  });
  const problems = await checkLibImports(copy.path);
  const reached = problems.map((p) => p.match(/may not import lib\/(\w+) \(floor/)?.[1]);
  const above = FLOORS.slice(floorOf("hive")).flatMap((f) => f.folders);
  assert.deepEqual(reached.sort(), [...above].sort());
  assert.ok(above.includes("runs") && above.includes("workbench"));
});

Deno.test("a fully dynamic import in lib/ fails unless reviewed", async () => {
  await using copy = await plantedCopy({
    "lib/hive/x.ts": "export function load(where: string): Promise<unknown> {\n" +
      "  return import(where);\n}\n",
  });
  assert.deepEqual(await checkLibImports(copy.path), [
    "lib/hive/x.ts:2 dynamic import where: lib/ may not name a module by an expression no floor " +
    "check can follow; use a string (or a template literal with a folder prefix), or review it " +
    "into LIB_DYNAMIC_IMPORTS in tests/architecture/allowlists.ts with a reason",
  ]);
});

Deno.test("a worker URL up a floor, and a URL at a shell, fail", async () => {
  await using copy = await plantedCopy({
    "lib/hive/x.ts": "export const w = () =>\n" +
      '  new Worker(new URL("../runs/service.ts", import.meta.url), { type: "module" });\n' +
      'export const s = new URL("../../routes/hono_app.ts", import.meta.url);\n',
  });
  assert.deepEqual(await checkLibImports(copy.path), [
    `lib/hive/x.ts:2 URL "../runs/service.ts": lib/hive (floor ${HIVE}) may not import lib/runs ` +
    `(floor ${RUNS})`,
    'lib/hive/x.ts:3 URL "../../routes/hono_app.ts": lib/ never imports a shell (routes, cli, ui)',
  ]);
});

Deno.test("a ui/ import of a hive module fails; its types alone pass", async () => {
  await using copy = await plantedCopy({
    "ui/tabs/planted.tsx": 'import type { Proposal } from "../../lib/hive/proposals.ts";\n' +
      'import { proposalById } from "../../lib/hive/proposals.ts";\n' +
      'import { RUN_STATUSES } from "../../lib/run_types.ts";\n' +
      "export const x: [Proposal | undefined, unknown, unknown] = [undefined, proposalById, " +
      "RUN_STATUSES];\n",
  });
  assert.deepEqual(await checkUiImports(copy.path), [
    'ui/tabs/planted.tsx:2 import "../../lib/hive/proposals.ts": ui/ may import lib/ types ' +
    "(`import type`) and floor-1 vocabulary (lib/*.ts) only, not lib/hive/proposals.ts at run " +
    "time; move what it needs to floor 1, or import only its types",
  ]);
});

Deno.test("an allowlisted ui/ import passes; one that is gone must leave the allowlist", async () => {
  const allowlist = [
    { file: "ui/tabs/planted.tsx", target: "lib/hive/proposals.ts", note: "planted" },
  ];
  await using copy = await plantedCopy({
    "ui/tabs/planted.tsx": 'import { proposalById } from "../../lib/hive/proposals.ts";\n' +
      "export const x: unknown = proposalById;\n",
  });
  assert.deepEqual(await checkUiImports(copy.path, allowlist), []);
  assert.deepEqual(await checkUiImports(ROOT, allowlist), [
    "ui/tabs/planted.tsx no longer imports lib/hive/proposals.ts at run time; remove it from " +
    "UI_RUNTIME_IMPORTS in tests/architecture/allowlists.ts",
  ]);
});

Deno.test("SQL in a shell fails, in a route and in a command", async () => {
  await using copy = await plantedCopy({
    "routes/planted.ts": "export function wipe(db: { exec(sql: string): void }): void {\n" +
      '  db.exec("DELETE FROM runs");\n}\n',
    "cli/planted.ts":
      "export function drop(db: { query(sql: string): void }, id: string): void {\n" +
      "  db.query(`delete from runs where id = '${id}'`);\n" +
      '  const sql = "UPDATE runs SET status = ?";\n' +
      "  void sql;\n}\n",
  });
  assert.deepEqual(await checkShells(copy.path), [
    "cli/planted.ts:2: SQL (the hive owns every statement: call a lib/hive/ function): " +
    "db.query(`delete from runs where id = '${id}'`)",
    "cli/planted.ts:3: SQL (the hive owns every statement: call a lib/hive/ function): " +
    '"UPDATE runs SET status = ?"',
    "routes/planted.ts:2: SQL (the hive owns every statement: call a lib/hive/ function): " +
    'db.exec("DELETE FROM runs")',
  ]);
});

Deno.test("a body field cast with `as string` and a run launched by hand fail in a shell", async () => {
  await using copy = await plantedCopy({
    "routes/planted.ts": "export function f(body: Record<string, unknown>, " +
      "launchRun: (x: string) => void): void {\n" +
      "  launchRun(body.input as string);\n}\n",
  });
  assert.deepEqual(await checkShells(copy.path), [
    "routes/planted.ts:2: a run launched by hand (use the run service): launchRun",
    "routes/planted.ts:2: a body field cast with `as string` (read it with a schema): " +
    "body.input as string",
  ]);
});

/** A function of `lines` lines. */
function functionOf(name: string, lines: number): string {
  return `export function ${name}(): number {\n  let n = 0;\n${"  n++;\n".repeat(lines - 4)}` +
    "  return n;\n}\n";
}

Deno.test("a function of 121 lines in lib/ fails; one of 120 passes", async () => {
  await using copy = await plantedCopy({
    "lib/planted.ts": functionOf("tooLong", 121) + functionOf("justRight", 120),
  });
  assert.deepEqual(await checkFunctionLengths(copy.path), [
    "lib/planted.ts:1 tooLong is 121 lines: no function may be over 120 lines; split it",
  ]);
});

Deno.test("an allowlisted function that grows fails; one renamed away or that fits must leave the allowlist", async () => {
  const planted = [
    { file: "lib/planted.ts", name: "grows", lines: 125 },
    { file: "lib/planted.ts", name: "shrinks", lines: 130 },
    { file: "lib/planted.ts", name: "renamed", lines: 130 },
    { file: "lib/planted.ts", name: "fits", lines: 130 },
  ];
  await using copy = await plantedCopy({
    "lib/planted.ts": functionOf("grows", 126) + functionOf("shrinks", 128) +
      functionOf("renamedAway", 130) + functionOf("fits", 120),
  });
  assert.deepEqual(await checkFunctionLengths(copy.path, [...LONG_FUNCTIONS, ...planted]), [
    "lib/planted.ts:1 grows grew to 126 lines (allowlisted at 125 in LONG_FUNCTIONS): an " +
    "allowlisted function may only shrink; split it",
    "lib/planted.ts:255 renamedAway is 130 lines: no function may be over 120 lines; split it",
    "lib/planted.ts renamed is gone: remove it from the allowlist (LONG_FUNCTIONS in " +
    "tests/architecture/allowlists.ts)",
    "lib/planted.ts fits is 120 lines: remove it from the allowlist (LONG_FUNCTIONS in " +
    "tests/architecture/allowlists.ts)",
  ]);
});

Deno.test("a floor diagram that disagrees with the floors table fails", async () => {
  await using copy = await plantedCopy({
    "docs/architecture.md": (old) =>
      old.replace(`${TOOLS}  tools, construct, interface, package`, `${TOOLS}  tools, construct`),
  });
  const problems = await checkFloorDiagram(copy.path);
  assert.equal(problems.length, 1);
  assert.match(problems[0]!, /disagrees with tests\/architecture\/floors\.ts/);
  assert.match(problems[0]!, new RegExp(`${TOOLS} {2}tools, construct, interface, package`));
});
