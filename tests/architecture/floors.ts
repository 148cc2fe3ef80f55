/**
 * The floors of lib/, written once. tests/architecture_test.ts checks every import against this
 * table, and the floor diagram in docs/architecture.md is generated from it: run
 *
 * ```sh
 * deno run --allow-read --allow-write tests/architecture/floors.ts
 * ```
 *
 * after changing a floor (the test fails while the diagram disagrees with the table).
 *
 * @module
 */

/** One floor of lib/: its top folders (`.` is lib/*.ts) and what lives there. */
export interface Floor {
  folders: readonly string[];
  about: string;
}

/** The floors of lib/, bottom first: a folder may import its own folder or a lower floor. */
export const FLOORS: readonly Floor[] = [
  {
    folders: ["."],
    about: "vocabulary: errors, envelope, ids, paths, hashing, run types, requests (one schema " +
      "per request body), whole numbers, lines",
  },
  {
    folders: ["fs", "sqlite", "http"],
    about: "mechanics: atomic writes, locks, safe paths, databases, SSE, bodies",
  },
  { folders: ["pg"], about: "PostgreSQL answering the SQLite calls synchronously" },
  { folders: ["hive"], about: "the machine's store: owns every SQL statement on its tables" },
  {
    folders: ["harness_spec"],
    about: "harness.yaml: schema, parse, edit policies (frozen fields), versions",
  },
  {
    folders: ["models", "keys", "trust", "templates"],
    about: "model providers and pricing; keys and bearer tokens; the trust gate; the templates " +
      "of `framework init`",
  },
  { folders: ["journal"], about: "hash-chained traces, their verification and description" },
  {
    folders: ["tools", "construct", "interface", "package", "otel"],
    about: "built-in tools, the code sandbox, the MCP and A2A clients; set/add/remove/init/" +
      "replace spec; a harness's " +
      "page (`framework generate`); packages (`framework package`); finished journals " +
      "exported as OpenTelemetry traces",
  },
  {
    folders: ["validate"],
    about: "a harness checked whole (spec, trace folder, code refs in the sandbox)",
  },
  { folders: ["runner"], about: "the agent loop: one run, its journal, its result" },
  { folders: ["evolve"], about: "proposals, the evolution gate, auto-propose" },
  { folders: ["runs"], about: "the run service, live controls, forks and lineage" },
  {
    folders: ["evals", "openai", "a2a"],
    about:
      "evaluations, versions compared, proposals measured before apply; the OpenAI-compatible " +
      "endpoints' requests and answers over the run service; the A2A agent card, JSON-RPC and " +
      "tasks over the run service",
  },
  {
    folders: ["workbench"],
    about: "catalog, conversations, chat turns, memories, copilot tools",
  },
];

/**
 * The floor of a lib/ folder, numbered from 1 (vocabulary) as docs/architecture.md numbers them.
 *
 * @param folder A top folder of lib/, or `.` for lib/*.ts.
 * @returns Its floor, or undefined for a folder the table does not know.
 */
export function floorOf(folder: string): number | undefined {
  const i = FLOORS.findIndex((f) => f.folders.includes(folder));
  return i < 0 ? undefined : i + 1;
}

/**
 * The top folder of a path inside lib/.
 *
 * @param libPath A path relative to lib/ (`hive/runs.ts`, `errors.ts`).
 * @returns `.` for lib/*.ts, else its first segment.
 */
export function folderOf(libPath: string): string {
  const parts = libPath.split("/");
  return parts.length === 1 ? "." : parts[0]!;
}

/** The doc's markers around the generated diagram. */
export const DIAGRAM_BEGIN =
  "<!-- floors:begin (generated from tests/architecture/floors.ts; edit the table, then run " +
  "`deno run --allow-read --allow-write tests/architecture/floors.ts`) -->";
export const DIAGRAM_END = "<!-- floors:end -->";

const SHELLS = [
  "           ┌──────────────────────────── shells ─────────────────────────────┐",
  "           │  cli.ts, cli/          routes/ (control plane, workbench)   ui/ │",
  "           └──────────────┬─────────────────────┬─────────────────────────┬──┘",
  "                          │ calls               │ calls                   │ HTTP, and lib/ types",
  "                          │                     │                         │ and floor-1 vocabulary",
];
const COLUMN = 26;
const WIDTH = 100;

/** Splits text into lines of at most `width` characters, at spaces. */
function wrap(text: string, width: number): string[] {
  const lines: string[] = [];
  let line = "";
  for (const word of text.split(" ")) {
    if (line && line.length + 1 + word.length > width) {
      lines.push(line);
      line = word;
    } else line = line ? `${line} ${word}` : word;
  }
  return line ? [...lines, line] : lines;
}

/**
 * The floor diagram of docs/architecture.md (a fenced block, top floor first), from {@link FLOORS}.
 *
 * @returns The block's lines, fences included.
 */
export function floorDiagram(): string[] {
  const out = ["```", ...SHELLS];
  for (let i = FLOORS.length - 1; i >= 0; i--) {
    const { folders, about } = FLOORS[i]!;
    const name = `${String(i + 1).padStart(2)}  ${
      folders.map((f) => f === "." ? ". (lib/*.ts)" : f).join(", ")
    }`;
    const text = wrap(about, WIDTH - COLUMN - 3);
    const bar = (t: string) => `│  ${t}`;
    if (name.length < COLUMN) out.push(`${name.padEnd(COLUMN)}${bar(text.shift()!)}`);
    else out.push(name);
    for (const t of text) out.push(`${" ".repeat(COLUMN)}${bar(t)}`);
  }
  return [...out, "```"];
}

/**
 * The doc with its floor diagram replaced by the one generated from the table.
 *
 * @param doc The text of docs/architecture.md.
 * @returns The new text, or undefined when the doc has no markers.
 */
export function withFloorDiagram(doc: string): string | undefined {
  const begin = doc.indexOf(DIAGRAM_BEGIN);
  const end = doc.indexOf(DIAGRAM_END);
  if (begin < 0 || end < begin) return undefined;
  return `${doc.slice(0, begin + DIAGRAM_BEGIN.length)}\n\n${floorDiagram().join("\n")}\n\n${
    doc.slice(end)
  }`;
}

if (import.meta.main) {
  const path = new URL("../../docs/architecture.md", import.meta.url);
  const next = withFloorDiagram(await Deno.readTextFile(path));
  if (next === undefined) throw new Error(`docs/architecture.md has no ${DIAGRAM_BEGIN} marker`);
  await Deno.writeTextFile(path, next);
}
