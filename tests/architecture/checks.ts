/**
 * The architecture rules as functions of a checkout's root, each returning its problems (empty when
 * the rule holds). Every problem names the file, the line, what it imports or calls, and the rule.
 * tests/architecture_test.ts runs them on this checkout; tests/architecture/planted_test.ts runs
 * them on a temporary copy with a violation planted, to show each one fails.
 *
 * @module
 */

import { join, normalize, relative, resolve } from "node:path";
import {
  LIB_DYNAMIC_IMPORTS,
  LONG_FUNCTIONS,
  type LongFunctionEntry,
  UI_RUNTIME_IMPORTS,
  type UiImportEntry,
} from "./allowlists.ts";
import { DIAGRAM_BEGIN, DIAGRAM_END, floorDiagram, floorOf, folderOf } from "./floors.ts";
import { type Edge, type Graph, readGraph, sourceFiles } from "./graph.ts";

/** The longest a function may be, in lines. */
export const MAX_FUNCTION_LINES = 120;
/** The shells: they translate and call lib/, and hold no SQL or run launch of their own. */
export const SHELL_ROOTS: readonly string[] = ["routes", "cli", "cli.ts"];
const CODE = /\.(?:ts|tsx|mts|js|jsx|mjs)$/;
const LAYOUT_TOOL = "deno run --allow-read --allow-write tests/architecture/floors.ts";

const graphs = new Map<string, Promise<Graph>>();

/**
 * The graph of a checkout, read once per root.
 *
 * @param root The checkout.
 * @returns Its graph.
 */
export function graphOf(root: string): Promise<Graph> {
  root = resolve(root);
  let graph = graphs.get(root);
  if (!graph) graphs.set(root, graph = readGraph(root));
  return graph;
}

/** Whether a root-relative path lies under a folder (or is that file). */
function under(path: string, folder: string): boolean {
  return path === folder || path.startsWith(`${folder}/`);
}

/** How an edge reads in a message: `lib/hive/x.ts:3 side-effect import "../runs/service.ts"`. */
function site(e: Edge): string {
  return `${e.from}:${e.line} ${e.kind} ${e.text}`;
}

/**
 * The lib/ folders a template-literal specifier can reach, from its static prefix.
 *
 * @returns The top folders of lib/ it can name (`.` for lib/*.ts), or `outside` when it can name a
 *   file outside lib/.
 */
async function reachOf(root: string, e: Edge): Promise<string[] | "outside"> {
  const base = e.specifier.slice(0, e.specifier.lastIndexOf("/") + 1);
  const rest = e.specifier.slice(base.length);
  const dir = normalize(join(e.from, "..", base)).replace(/\/$/, "");
  if (!under(dir, "lib")) return "outside";
  if (dir !== "lib") return [folderOf(relative("lib", `${dir}/x`))];
  const reach: string[] = [];
  for await (const entry of Deno.readDir(join(root, "lib"))) {
    if (!entry.name.startsWith(rest)) continue;
    reach.push(entry.isDirectory ? entry.name : ".");
  }
  return [...new Set(reach)].sort();
}

/**
 * lib/ imports only point down its floors, and never at a shell: static, side-effect, type-only,
 * re-export and dynamic imports, worker and `new URL(…, import.meta.url)` references, a template
 * literal by the folders its prefix can reach; a specifier that is any other expression only when
 * reviewed in `LIB_DYNAMIC_IMPORTS`.
 *
 * @param root The checkout.
 * @returns The problems.
 */
export async function checkLibImports(root: string): Promise<string[]> {
  const graph = await graphOf(root);
  const problems: string[] = [];
  const unknown = new Set<string>();
  const reviewed = new Set<string>();
  for (const e of graph.edges) {
    if (!under(e.from, "lib")) continue;
    const fromFolder = folderOf(relative("lib", e.from));
    const fromFloor = floorOf(fromFolder);
    if (fromFloor === undefined) {
      unknown.add(
        `${e.from}: lib/${fromFolder}/ has no floor; add it to FLOORS in ` +
          `tests/architecture/floors.ts, then run \`${LAYOUT_TOOL}\``,
      );
      continue;
    }
    const relativePrefix = e.specifier.startsWith("./") || e.specifier.startsWith("../");
    if (e.form === "expression" || (e.form === "template" && !relativePrefix)) {
      const entry = LIB_DYNAMIC_IMPORTS.find((d) => d.file === e.from && d.expression === e.text);
      if (entry) reviewed.add(`${entry.file} ${entry.expression}`);
      else {
        problems.push(
          `${site(e)}: lib/ may not name a module by an expression no floor check can follow; ` +
            "use a string (or a template literal with a folder prefix), or review it into " +
            "LIB_DYNAMIC_IMPORTS in tests/architecture/allowlists.ts with a reason",
        );
      }
      continue;
    }
    let targets: string[];
    if (e.form === "template") {
      const reach = await reachOf(graph.root, e);
      if (reach === "outside") {
        problems.push(
          `${site(e)}: lib/ never imports a shell (routes, cli, ui); this template ` +
            "literal can reach outside lib/",
        );
        continue;
      }
      targets = reach;
    } else {
      if (e.to === undefined) continue; // npm:, node: and other packages
      if (!under(e.to, "lib")) {
        problems.push(`${site(e)}: lib/ never imports a shell (routes, cli, ui)`);
        continue;
      }
      targets = [folderOf(relative("lib", e.to))];
    }
    for (const toFolder of targets) {
      if (toFolder === fromFolder) continue;
      const toFloor = floorOf(toFolder);
      if (toFloor === undefined || toFloor >= fromFloor) {
        problems.push(
          `${site(e)}: lib/${fromFolder} (floor ${fromFloor}) may not import lib/${toFolder} ` +
            `(floor ${toFloor ?? "none"})${
              e.form === "template" ? ", which the template literal can reach" : ""
            }`,
        );
      }
    }
  }
  for (const d of LIB_DYNAMIC_IMPORTS) {
    if (!reviewed.has(`${d.file} ${d.expression}`)) {
      problems.push(
        `${d.file}: no dynamic import of \`${d.expression}\` any more; remove it from ` +
          "LIB_DYNAMIC_IMPORTS in tests/architecture/allowlists.ts",
      );
    }
  }
  return [...unknown, ...problems];
}

/**
 * ui/ imports lib/ types and vocabulary only: `import type` from anywhere in lib/, and at run time
 * only floor-1 modules (lib/*.ts), besides the entries of `UI_RUNTIME_IMPORTS`; never a shell.
 *
 * @param root The checkout.
 * @param allowlist The reviewed exceptions (the planted tests pass their own).
 * @returns The problems.
 */
export async function checkUiImports(
  root: string,
  allowlist: readonly UiImportEntry[] = UI_RUNTIME_IMPORTS,
): Promise<string[]> {
  const graph = await graphOf(root);
  const problems: string[] = [];
  const used = new Set<UiImportEntry>();
  for (const e of graph.edges) {
    if (!under(e.from, "ui")) continue;
    if (e.form !== "literal") {
      problems.push(`${site(e)}: ui/ may not name a module by an expression; use a string`);
      continue;
    }
    if (e.to === undefined || under(e.to, "ui")) continue;
    if (under(e.to, "lib")) {
      if (!e.runtime || folderOf(relative("lib", e.to)) === ".") continue;
      const entry = allowlist.find((u) => u.file === e.from && u.target === e.to);
      if (entry) {
        used.add(entry);
        continue;
      }
      problems.push(
        `${site(e)}: ui/ may import lib/ types (\`import type\`) and floor-1 vocabulary ` +
          `(lib/*.ts) only, not ${e.to} at run time; move what it needs to floor 1, or ` +
          "import only its types",
      );
    } else if (CODE.test(e.to)) {
      problems.push(
        `${site(e)}: ui/ never imports a shell (routes, cli); it talks to them over HTTP`,
      );
    }
  }
  for (const u of allowlist) {
    if (!used.has(u)) {
      problems.push(
        `${u.file} no longer imports ${u.target} at run time; remove it from ` +
          "UI_RUNTIME_IMPORTS in tests/architecture/allowlists.ts",
      );
    }
  }
  return problems;
}

/**
 * The shells (routes/, cli/, cli.ts) hold no SQL (a string handed to `.exec`, `.prepare`,
 * `.query` or `statement`, or a whole statement in any string), no request body field cast with
 * `as string`, and no run launched by hand.
 *
 * @param root The checkout.
 * @returns The problems.
 */
export async function checkShells(root: string): Promise<string[]> {
  const graph = await graphOf(root);
  const what = {
    "SQL": "SQL (the hive owns every statement: call a lib/hive/ function)",
    "body cast": "a body field cast with `as string` (read it with a schema)",
    "run launch": "a run launched by hand (use the run service)",
  };
  const problems: string[] = [];
  for (const file of graph.files) {
    if (!SHELL_ROOTS.some((s) => under(file, s))) continue;
    for (const s of graph.facts.get(file)!.shellSites) {
      const snippet = s.text.replace(/\s+/g, " ").slice(0, 80);
      problems.push(`${file}:${s.line}: ${what[s.rule]}: ${snippet}`);
    }
  }
  return problems;
}

/**
 * No function in lib/, cli/, cli.ts, routes/ or ui/ is over {@link MAX_FUNCTION_LINES} lines
 * (declarations, expressions, arrows and methods alike), besides the entries of `LONG_FUNCTIONS`,
 * which may only shrink.
 *
 * @param root The checkout.
 * @param allowlist The reviewed exceptions (the planted tests pass their own).
 * @returns The problems.
 */
export async function checkFunctionLengths(
  root: string,
  allowlist: readonly LongFunctionEntry[] = LONG_FUNCTIONS,
): Promise<string[]> {
  const graph = await graphOf(root);
  const problems: string[] = [];
  const found = new Map<string, number>();
  for (const file of graph.files) {
    for (const f of graph.facts.get(file)!.functions) {
      found.set(`${file} ${f.name}`, f.lines);
      if (f.lines <= MAX_FUNCTION_LINES) continue;
      const entry = allowlist.find((l) => l.file === file && l.name === f.name);
      if (!entry) {
        problems.push(
          `${file}:${f.line} ${f.name} is ${f.lines} lines: no function may be over ` +
            `${MAX_FUNCTION_LINES} lines; split it`,
        );
      } else if (f.lines > entry.lines) {
        problems.push(
          `${file}:${f.line} ${f.name} grew to ${f.lines} lines (allowlisted at ` +
            `${entry.lines} in LONG_FUNCTIONS): an allowlisted function may only shrink; split it`,
        );
      }
    }
  }
  for (const l of allowlist) {
    const lines = found.get(`${l.file} ${l.name}`);
    if (lines === undefined || lines <= MAX_FUNCTION_LINES) {
      problems.push(
        `${l.file} ${l.name} is ${lines === undefined ? "gone" : `${lines} lines`}: ` +
          "remove it from the allowlist (LONG_FUNCTIONS in tests/architecture/allowlists.ts)",
      );
    }
  }
  return problems;
}

/**
 * The floor diagram of docs/architecture.md is the one generated from the floors table.
 *
 * @param root The checkout.
 * @returns The problems.
 */
export async function checkFloorDiagram(root: string): Promise<string[]> {
  const doc = await Deno.readTextFile(join(root, "docs/architecture.md"));
  const begin = doc.indexOf(DIAGRAM_BEGIN);
  const end = doc.indexOf(DIAGRAM_END);
  if (begin < 0 || end < begin) {
    return [
      `docs/architecture.md has lost its floor diagram markers (${DIAGRAM_BEGIN} … ${DIAGRAM_END})`,
    ];
  }
  const written = doc.slice(begin + DIAGRAM_BEGIN.length, end).trim().split("\n");
  const wanted = floorDiagram();
  const differ = wanted.flatMap((line, i) =>
    line === written[i] ? [] : [
      `  line ${i + 1}: doc has ${JSON.stringify(written[i] ?? "")}, table says ${
        JSON.stringify(line)
      }`,
    ]
  );
  if (written.length > wanted.length) {
    differ.push(`  the doc has ${written.length - wanted.length} extra lines`);
  }
  return differ.length
    ? [
      `docs/architecture.md's floor diagram disagrees with tests/architecture/floors.ts; run ` +
      `\`${LAYOUT_TOOL}\`:\n${differ.join("\n")}`,
    ]
    : [];
}

/**
 * Every folder of lib/ has a floor.
 *
 * @param root The checkout.
 * @returns The problems.
 */
export async function checkEveryFolderHasAFloor(root: string): Promise<string[]> {
  const problems: string[] = [];
  for await (const e of Deno.readDir(join(root, "lib"))) {
    if (e.isDirectory && floorOf(e.name) === undefined) {
      problems.push(
        `lib/${e.name}/ has no floor; add it to FLOORS in tests/architecture/floors.ts`,
      );
    }
  }
  return problems;
}

/** A rule, a pattern that only its own home may contain, and that home (`""`: a helper anywhere). */
const WRITTEN_ONCE: readonly [string, RegExp, string][] = [
  ["the sensitive-name rule", /startsWith\(\s*["']\.env["']\s*\)/, "lib/paths.ts"],
  ["the hash-chain formula", /sha256Hex\(`\$\{prev\}/, "lib/journal/event.ts"],
  [
    "a valid spec",
    /!!\s*\w+(?:\.\w+)*\.spec\s*&&\s*!hasErrors|\.spec\s*\|\|\s*hasErrors/,
    "lib/harness_spec/load.ts",
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
  [
    "OpenAI's error types",
    /["'](?:authentication_error|permission_error|rate_limit_error|not_found_error)["']/,
    "lib/openai/errors.ts",
  ],
];

/**
 * Each shared rule is written in one place (docs/architecture.md, "Rules written once").
 *
 * @param root The checkout.
 * @returns The problems.
 */
export async function checkRulesWrittenOnce(root: string): Promise<string[]> {
  const files = await sourceFiles(resolve(root), ["lib", "routes", "cli", "cli.ts"]);
  const texts = await Promise.all(files.map((f) => Deno.readTextFile(join(root, f))));
  const problems: string[] = [];
  for (const [rule, pattern, home] of WRITTEN_ONCE) {
    const where = files.filter((_, i) => pattern.test(texts[i]!));
    const strays = where.filter((f) => f !== home);
    if (strays.length) {
      problems.push(`${rule} is written outside ${home || "its helper"}: ${strays.join(", ")}`);
    }
    if (home && !where.includes(home)) {
      problems.push(`${rule} is no longer in ${home}; update this test`);
    }
  }
  return problems;
}
