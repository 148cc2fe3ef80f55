/**
 * The module graph of a checkout, as the architecture test reads it: `deno info --json` run once
 * over every source file of lib/ (lib/templates/ included), routes/, cli/, cli.ts and ui/ (not the
 * built ui/dist/) resolves each import the way Deno does, side-effect imports, re-exports, literal
 * dynamic imports and text imports included, and tells a type-only import from one that runs. What
 * `deno info` cannot see is read from each file's syntax tree (./source.ts): dynamic imports named by
 * a template literal or any other expression, `new URL("…", import.meta.url)` and `new Worker(…)`.
 *
 * Every function takes the checkout's root, so a test can check a temporary copy it planted a
 * violation in.
 *
 * @module
 */

import { dirname, join, relative, resolve } from "node:path";
import { fileURLToPath, pathToFileURL } from "node:url";
import { readSource, type SiteKind, type SourceFacts } from "./source.ts";

/** The folders (and files) whose modules the test reads, relative to the root. */
export const SOURCE_ROOTS: readonly string[] = ["lib", "routes", "cli", "ui", "cli.ts"];
/** Folders never read: built output. */
const SKIPPED = new Set(["ui/dist"]);
const SOURCE_FILE = /\.(?:ts|tsx|mts|js|jsx|mjs)$/;

/** One edge of the graph: a file naming another module. */
export interface Edge {
  /** The importing file, relative to the root (`lib/hive/runs.ts`). */
  from: string;
  kind: SiteKind;
  /** As written; a template literal's static prefix; `""` for an expression. */
  specifier: string;
  /** `literal`, `template` (only its prefix is known) or `expression` (nothing is known). */
  form: "literal" | "template" | "expression";
  /** False for `import type` / `export type`: nothing of the target runs. */
  runtime: boolean;
  line: number;
  /** The target relative to the root (may start with `../`), for a file; else undefined. */
  to?: string;
  /** The source text of the specifier, for messages. */
  text: string;
}

/** The graph of a checkout: its source files, what each says, and every edge. */
export interface Graph {
  root: string;
  files: string[];
  facts: Map<string, SourceFacts>;
  texts: Map<string, string>;
  edges: Edge[];
}

/**
 * Lists the source files under the source roots (root-relative, `/`-separated, sorted).
 *
 * @param root The checkout.
 * @param roots The folders or files to list (default: {@link SOURCE_ROOTS}).
 * @returns The files.
 */
export async function sourceFiles(
  root: string,
  roots: readonly string[] = SOURCE_ROOTS,
): Promise<string[]> {
  const out: string[] = [];
  const walk = async (rel: string): Promise<void> => {
    const info = await Deno.stat(join(root, rel)).catch(() => undefined);
    if (!info) return;
    if (info.isFile) {
      if (SOURCE_FILE.test(rel)) out.push(rel);
      return;
    }
    if (SKIPPED.has(rel)) return;
    for await (const e of Deno.readDir(join(root, rel))) await walk(`${rel}/${e.name}`);
  };
  for (const r of roots) await walk(r);
  return out.sort();
}

/** Facts already read, by extension and text: a copy of the tree is parsed only where it differs. */
const FACTS_CACHE = new Map<string, SourceFacts>();

/** The facts of a file, from the cache when the same text was read before. */
function factsOf(path: string, text: string): SourceFacts {
  const key = `${path.slice(path.lastIndexOf("."))}\0${text}`;
  let facts = FACTS_CACHE.get(key);
  if (!facts) FACTS_CACHE.set(key, facts = readSource(path, text));
  return facts;
}

/** A `deno info --json` dependency. */
interface InfoDependency {
  specifier: string;
  code?: { specifier?: string; span?: { start: { line: number } } };
  type?: { specifier?: string; span?: { start: { line: number } } };
  isDynamic?: boolean;
}

/** Runs `deno info --json` once over every file (through a generated module importing them all). */
async function denoInfo(root: string, files: string[]): Promise<Map<string, InfoDependency[]>> {
  const dir = await Deno.makeTempDir({ prefix: "fw-arch-graph-" });
  try {
    const entry = join(dir, "all.ts");
    await Deno.writeTextFile(
      entry,
      files.map((f) => `import ${JSON.stringify(pathToFileURL(join(root, f)).href)};\n`).join(""),
    );
    const out = await new Deno.Command(Deno.execPath(), {
      args: ["info", "--json", "--config", join(root, "deno.json"), entry],
      cwd: root,
      stdout: "piped",
      stderr: "piped",
    }).output();
    if (!out.success) {
      throw new Error(`deno info failed: ${new TextDecoder().decode(out.stderr)}`);
    }
    const info = JSON.parse(new TextDecoder().decode(out.stdout)) as {
      modules: { specifier: string; dependencies?: InfoDependency[] }[];
    };
    const deps = new Map<string, InfoDependency[]>();
    for (const m of info.modules) {
      if (!m.specifier.startsWith("file:")) continue;
      const rel = relative(root, fileURLToPath(m.specifier));
      deps.set(rel, m.dependencies ?? []);
    }
    return deps;
  } finally {
    await Deno.remove(dir, { recursive: true });
  }
}

/** A resolved specifier as a root-relative path, or undefined when it is not a local file. */
function localTarget(root: string, resolved: string | undefined): string | undefined {
  if (!resolved?.startsWith("file:")) return undefined;
  return relative(root, fileURLToPath(resolved));
}

/**
 * Reads the graph of a checkout.
 *
 * @param root The checkout (its deno.json resolves bare specifiers).
 * @returns Its files, their facts and every edge.
 */
export async function readGraph(root: string): Promise<Graph> {
  root = resolve(root);
  const files = await sourceFiles(root);
  const texts = new Map<string, string>();
  const facts = new Map<string, SourceFacts>();
  await Promise.all(files.map(async (f) => texts.set(f, await Deno.readTextFile(join(root, f)))));
  for (const f of files) facts.set(f, factsOf(join(root, f), texts.get(f)!));
  const info = await denoInfo(root, files);
  const edges: Edge[] = [];
  for (const from of files) {
    const sites = facts.get(from)!.imports;
    const listed = new Set<string>();
    for (const dep of info.get(from) ?? []) {
      listed.add(dep.specifier);
      const same = sites.filter((s) => s.form === "literal" && s.specifier === dep.specifier);
      const runtime = dep.code !== undefined;
      const site = same.find((s) => s.typeOnly !== runtime) ?? same[0];
      const span = (dep.code ?? dep.type)?.span;
      edges.push({
        from,
        kind: site?.kind ?? (dep.isDynamic ? "dynamic import" : "import"),
        specifier: dep.specifier,
        form: "literal",
        runtime,
        line: span ? span.start.line + 1 : site?.line ?? 0,
        to: localTarget(root, dep.code?.specifier ?? dep.type?.specifier),
        text: site?.text ?? JSON.stringify(dep.specifier),
      });
    }
    // What deno info does not list: URLs, workers, and specifiers that are not plain strings.
    for (const s of sites) {
      if (
        s.form === "literal" && listed.has(s.specifier) && s.kind !== "URL" && s.kind !== "worker"
      ) {
        continue;
      }
      const relativeSpec = s.specifier.startsWith("./") || s.specifier.startsWith("../");
      edges.push({
        from,
        kind: s.kind,
        specifier: s.specifier,
        form: s.form,
        runtime: !s.typeOnly,
        line: s.line,
        to: s.form === "literal" && relativeSpec
          ? relative(root, resolve(root, dirname(from), s.specifier))
          : undefined,
        text: s.text,
      });
    }
  }
  return { root, files, facts, texts, edges };
}
