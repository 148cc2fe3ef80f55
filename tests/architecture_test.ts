/**
 * The architecture, checked: lib/ has floors that only point down (docs/architecture.md), lib/ never
 * imports a shell, and the shells (routes/, cli/) hold no SQL, no unchecked request bodies and no run
 * launch of their own. A failure names the file, the import and the rule.
 *
 * @module
 */

import assert from "node:assert/strict";
import { dirname, join, normalize, relative } from "node:path";

const ROOT = normalize(new URL("../", import.meta.url).pathname);

/** The floors of lib/, bottom first: a folder may import its own folder or a lower floor. */
export const FLOORS: readonly (readonly string[])[] = [
  ["."], // vocabulary: errors, ids, paths, hashing, run result types, small helpers
  ["fs", "sqlite", "http"], // mechanics
  ["hive"], // the store: owns every SQL statement on its tables
  ["spec"], // harness.yaml
  ["models", "keys", "trust", "templates"],
  ["journal"], // hash-chained traces (model messages are folded from them)
  ["tools", "construct", "interface", "package"],
  ["validate"], // a harness checked whole: spec, trace folder, code refs in the sandbox
  ["runner"], // the agent loop
  ["evolve"], // proposals and the evolution gate
  ["runs"], // the run service every shell calls
  ["evals"], // eval sets, evaluations, versions compared
  ["workbench"], // the workbench's library
];

/** The floor of a lib/ folder (its first segment), or undefined for an unknown folder. */
export function floorOf(folder: string): number | undefined {
  const i = FLOORS.findIndex((f) => f.includes(folder));
  return i < 0 ? undefined : i;
}

/** The top folder of a lib/ file: `.` for lib/*.ts, else its first segment. */
function folderOf(libPath: string): string {
  const parts = libPath.split("/");
  return parts.length === 1 ? "." : parts[0]!;
}

async function filesUnder(dir: string, ext: RegExp): Promise<string[]> {
  const out: string[] = [];
  for await (const e of Deno.readDir(join(ROOT, dir))) {
    const path = `${dir}/${e.name}`;
    if (e.isDirectory) {
      if (e.name !== "dist" && e.name !== "templates") out.push(...await filesUnder(path, ext));
    } else if (ext.test(e.name)) out.push(path);
  }
  return out;
}

/** Relative imports of a source text: static, re-exports and dynamic imports. */
function importsOf(text: string): string[] {
  const out: string[] = [];
  for (const m of text.matchAll(/(?:^|\n)\s*(?:import|export)\b[^;]*?\bfrom\s+"(\.[^"]+)"/g)) {
    out.push(m[1]!);
  }
  for (const m of text.matchAll(/\bimport\(\s*"(\.[^"]+)"\s*\)/g)) out.push(m[1]!);
  return out;
}

Deno.test("lib/ imports only point down its floors, and never at a shell", async () => {
  const problems: string[] = [];
  for (const file of await filesUnder("lib", /\.tsx?$/)) {
    const from = relative("lib", file);
    const fromFolder = folderOf(from);
    const fromFloor = floorOf(fromFolder);
    if (fromFloor === undefined) {
      problems.push(`${file}: lib/${fromFolder}/ has no floor; add it to docs/architecture.md`);
      continue;
    }
    for (const spec of importsOf(await Deno.readTextFile(join(ROOT, file)))) {
      const target = normalize(join(dirname(file), spec));
      if (!target.startsWith("lib/")) {
        problems.push(`${file} imports ${spec}: lib/ never imports a shell (routes, cli, ui)`);
        continue;
      }
      const toFolder = folderOf(relative("lib", target));
      if (toFolder === fromFolder) continue;
      const toFloor = floorOf(toFolder);
      if (toFloor === undefined || toFloor >= fromFloor) {
        problems.push(
          `${file} imports ${spec}: lib/${fromFolder} (floor ${fromFloor}) may not import lib/${toFolder} (floor ${toFloor})`,
        );
      }
    }
  }
  assert.deepEqual(problems, [], `imports that point up:\n${problems.join("\n")}`);
});

Deno.test("the shells hold no SQL, no unchecked body and no run launch of their own", async () => {
  const rules: [RegExp, string][] = [
    [
      /\b(?:statement|prepare)\(\s*\w+\s*,?\s*[`"'](?:\s*)(?:SELECT|INSERT|UPDATE|DELETE)\b/i,
      "SQL",
    ],
    [/\b(?:SELECT|INSERT INTO|UPDATE|DELETE FROM)\s+\w+.*\bWHERE\b/, "SQL"],
    [/\.prepare\(/, "SQL"],
    [/\b(?:body|b)\.\w+ as string\b/, "a body field cast with `as string` (read it with a schema)"],
    [/\b(?:launchRun|prepareRun)\(/, "a run launched by hand (use the run service)"],
  ];
  const problems: string[] = [];
  const shells = [
    ...await filesUnder("routes", /\.tsx?$/),
    ...await filesUnder("cli", /\.ts$/),
    "cli.ts",
  ];
  for (const file of shells) {
    const text = await Deno.readTextFile(join(ROOT, file));
    for (const [pattern, what] of rules) {
      if (pattern.test(text)) problems.push(`${file}: ${what}`);
    }
  }
  assert.deepEqual(problems, [], problems.join("\n"));
});

Deno.test("no function over 120 lines in routes/ or lib/workbench/", async () => {
  const long: string[] = [];
  const files = [
    ...await filesUnder("routes", /\.tsx?$/),
    ...await filesUnder("lib/workbench", /\.ts$/),
  ];
  for (const file of files) {
    const lines = (await Deno.readTextFile(join(ROOT, file))).split("\n");
    for (let i = 0; i < lines.length; i++) {
      // A top-level function: from its declaration to the closing brace at column 0.
      if (!/^(?:export )?(?:async )?function\b/.test(lines[i]!)) continue;
      let j = i + 1;
      while (j < lines.length && lines[j] !== "}") j++;
      if (j - i + 1 > 120) long.push(`${file}:${i + 1} (${j - i + 1} lines)`);
    }
  }
  assert.deepEqual(long, [], `functions over 120 lines:\n${long.join("\n")}`);
});

Deno.test("floorOf() knows every lib/ folder", async () => {
  for await (const e of Deno.readDir(join(ROOT, "lib"))) {
    if (e.isDirectory) assert.notEqual(floorOf(e.name), undefined, `lib/${e.name}/`);
  }
});

Deno.test("each shared rule is written in one place", async () => {
  /** A rule, a pattern that only its own home may contain, and that home. */
  const rules: [string, RegExp, string][] = [
    ["the sensitive-name rule", /startsWith\(\s*["']\.env["']\s*\)/, "lib/paths.ts"],
    ["the hash-chain formula", /sha256Hex\(`\$\{prev\}/, "lib/journal/event.ts"],
    [
      "a valid spec",
      /!!\s*\w+(?:\.\w+)*\.spec\s*&&\s*!hasErrors|\.spec\s*\|\|\s*hasErrors/,
      "lib/spec/load.ts",
    ],
    [
      "whole-number text",
      /\/\^\\d\{1,15\}\$\/|\/\^\\d\+\$\/\.test\(\s*(?:o|raw|opts)\b/,
      "lib/whole_number.ts",
    ],
    ["the spec file's path", /join\([^)]*["']harness\.yaml["']/, ""],
    ["the state folder's name", /join\([^)]*["']\.framework["']/, ""],
    [
      "a cached database opener",
      /new Map<string, (?:DatabaseSync|Hive|WorkbenchDb)>/,
      "lib/sqlite/database.ts",
    ],
    ["an immediate transaction", /["']BEGIN IMMEDIATE["']/, "lib/sqlite/database.ts"],
    ["the line reader", /indexOf\((?:["']\\n["']\)|LF[,)])/, "lib/lines.ts"],
    ["the 404 and error handlers", /\.(?:notFound|onError)\(/, "routes/hono_app.ts"],
  ];
  const files = [
    ...await filesUnder("lib", /\.tsx?$/),
    ...await filesUnder("routes", /\.tsx?$/),
    ...await filesUnder("cli", /\.ts$/),
    "cli.ts",
  ];
  const texts = await Promise.all(files.map((f) => Deno.readTextFile(join(ROOT, f))));
  const problems: string[] = [];
  for (const [rule, pattern, home] of rules) {
    const where = files.filter((_, i) => pattern.test(texts[i]!));
    const strays = where.filter((f) => f !== home);
    if (strays.length) {
      problems.push(`${rule} is written outside ${home || "its helper"}: ${strays.join(", ")}`);
    }
    if (home && !where.includes(home)) {
      problems.push(`${rule} is no longer in ${home}; update this test`);
    }
  }
  assert.deepEqual(problems, [], problems.join("\n"));
});
