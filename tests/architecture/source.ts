/**
 * What the architecture test needs to know about one source file, read from its real syntax tree
 * (`Deno.lint.runPlugin` gives the ESTree AST Deno's linter sees), never from line patterns: every
 * place it names another module (static, side-effect, re-export, dynamic, `new URL(…,
 * import.meta.url)`, `new Worker(…)`), every function and its length in lines, and the calls the
 * shells may not make.
 *
 * @module
 */

/** How a file names another module. */
export type SiteKind =
  | "import"
  | "side-effect import"
  | "re-export"
  | "dynamic import"
  | "URL"
  | "worker";

/** One place a file names another module, as written. */
export interface ImportSite {
  kind: SiteKind;
  /** The specifier when it is a plain string; for a template literal, its static prefix. */
  specifier: string;
  /** `literal` (a plain string), `template` (a prefix then expressions) or `expression` (anything else). */
  form: "literal" | "template" | "expression";
  /** `import type` / `export type`: erased before the code runs. */
  typeOnly: boolean;
  line: number;
  /** The source text of the specifier, for messages. */
  text: string;
}

/** A function (declaration, expression, arrow or method) and how many lines it spans. */
export interface FunctionSpan {
  /** Its name: `outer/inner` when nested, `Class.method`, `callback of app.get("/x")`, … */
  name: string;
  line: number;
  lines: number;
}

/** A call or literal the shells may not hold, with what it is. */
export interface ShellSite {
  line: number;
  rule: "SQL" | "body cast" | "run launch";
  text: string;
}

/** Everything the architecture test reads from one file. */
export interface SourceFacts {
  imports: ImportSite[];
  functions: FunctionSpan[];
  shellSites: ShellSite[];
}

/** A statement of SQL: the first word of a string handed to a database call. */
const SQL_START =
  /^\s*(?:SELECT|INSERT|UPDATE|DELETE|REPLACE|CREATE|DROP|ALTER|PRAGMA|WITH|BEGIN|COMMIT|ROLLBACK|SAVEPOINT|RELEASE|VACUUM|ATTACH|DETACH)\b/i;
/** A whole SQL statement anywhere in a string (capital keywords, as SQL is written here). */
const SQL_STATEMENT =
  /^\s*(?:SELECT\b[\s\S]*\bFROM\b|INSERT\s+(?:OR\s+\w+\s+)?INTO\b|UPDATE\s+\w+\s+SET\b|DELETE\s+FROM\b|(?:CREATE|DROP)\s+(?:TABLE|INDEX|VIEW|TRIGGER)\b|ALTER\s+TABLE\b|PRAGMA\s+\w+)/;
/** The calls that hand a string to a database. */
const SQL_CALLS = new Set(["exec", "prepare", "query", "statement"]);
/** The calls that launch a run by hand instead of through the run service. */
const LAUNCH_CALLS = new Set(["launchRun", "prepareRun"]);

// deno-lint-ignore no-explicit-any
type Node = any;

/** The part of `Deno.lint` used here (typed locally: its types are in the unstable lib only). */
interface LintPlugin {
  name: string;
  rules: Record<string, { create(context: unknown): Record<string, (node: Node) => void> }>;
}
const lint = (Deno as unknown as {
  lint: { runPlugin(plugin: LintPlugin, fileName: string, source: string): unknown[] };
}).lint;

/** The text of a string or template literal (a template's expressions as `${…}`), else undefined. */
function stringOf(node: Node): string | undefined {
  if (!node) return undefined;
  if (node.type === "Literal" && typeof node.value === "string") return node.value;
  if (node.type === "TemplateLiteral") {
    return node.quasis.map((q: Node) => q.cooked ?? q.raw).join("${…}");
  }
  if (node.type === "BinaryExpression" && node.operator === "+") {
    const l = stringOf(node.left);
    const r = stringOf(node.right);
    return l === undefined && r === undefined ? undefined : `${l ?? "…"}${r ?? "…"}`;
  }
  return undefined;
}

/** The name a call is made by: `exec` for `db.exec(…)`, `statement` for `statement(…)`. */
function calleeName(callee: Node): string | undefined {
  if (callee?.type === "Identifier") return callee.name;
  if (callee?.type === "MemberExpression" && !callee.computed) return callee.property?.name;
  return undefined;
}

/** Whether a node is `import.meta.url`. */
function isImportMetaUrl(node: Node): boolean {
  return node?.type === "MemberExpression" && node.object?.type === "MetaProperty" &&
    node.property?.name === "url";
}

/** A specifier node read as a site: a plain string, a template literal's prefix, or an expression. */
function specifierOf(node: Node): Pick<ImportSite, "specifier" | "form"> {
  if (node?.type === "Literal" && typeof node.value === "string") {
    return { specifier: node.value, form: "literal" };
  }
  if (node?.type === "TemplateLiteral") {
    const prefix = node.quasis[0]?.cooked ?? node.quasis[0]?.raw ?? "";
    return node.expressions.length === 0
      ? { specifier: prefix, form: "literal" }
      : { specifier: prefix, form: "template" };
  }
  return { specifier: "", form: "expression" };
}

/**
 * Reads the facts of one file from its syntax tree.
 *
 * @param fileName The file's path (its extension picks TypeScript or TSX).
 * @param source Its text.
 * @returns Its imports, functions and shell sites.
 */
export function readSource(fileName: string, source: string): SourceFacts {
  const facts: SourceFacts = { imports: [], functions: [], shellSites: [] };
  const starts = [0];
  for (let i = source.indexOf("\n"); i >= 0; i = source.indexOf("\n", i + 1)) starts.push(i + 1);
  const lineAt = (offset: number): number => {
    let lo = 0;
    let hi = starts.length - 1;
    while (lo < hi) {
      const mid = (lo + hi + 1) >> 1;
      if (starts[mid]! <= offset) lo = mid;
      else hi = mid - 1;
    }
    return lo + 1;
  };
  const text = (node: Node): string => source.slice(node.range[0], node.range[1]);
  const site = (kind: SiteKind, node: Node, spec: Node, typeOnly = false): void => {
    facts.imports.push({
      kind,
      ...specifierOf(spec),
      typeOnly,
      line: lineAt(node.range[0]),
      text: spec ? text(spec) : "",
    });
  };
  const names = new Map<Node, string>();
  const nameOf = (fn: Node): string => {
    let name = names.get(fn);
    if (name) return name;
    name = localName(fn, text);
    for (let p = fn.parent; p; p = p.parent) {
      if (isFunction(p)) {
        name = `${nameOf(p)}/${name}`;
        break;
      }
    }
    names.set(fn, name);
    return name;
  };
  const seen = new Map<string, number>();
  const fn = (node: Node): void => {
    const first = lineAt(node.range[0]);
    const name = nameOf(node);
    const n = (seen.get(name) ?? 0) + 1;
    seen.set(name, n);
    facts.functions.push({
      name: n === 1 ? name : `${name} #${n}`,
      line: first,
      lines: lineAt(node.range[1] - 1) - first + 1,
    });
  };

  const plugin: LintPlugin = {
    name: "architecture",
    rules: {
      facts: {
        create() {
          return {
            ImportDeclaration(node: Node) {
              const kind = node.specifiers.length === 0 ? "side-effect import" : "import";
              site(kind, node, node.source, node.importKind === "type");
            },
            ExportAllDeclaration(node: Node) {
              site("re-export", node, node.source, node.exportKind === "type");
            },
            ExportNamedDeclaration(node: Node) {
              if (node.source) site("re-export", node, node.source, node.exportKind === "type");
            },
            ImportExpression(node: Node) {
              site("dynamic import", node, node.source);
            },
            NewExpression(node: Node) {
              const callee = node.callee?.type === "Identifier" ? node.callee.name : undefined;
              const [first, second] = node.arguments;
              if (callee === "URL" && isImportMetaUrl(second)) site("URL", node, first);
              if (callee === "Worker" && first && !namesUrl(first)) site("worker", node, first);
            },
            CallExpression(node: Node) {
              const name = calleeName(node.callee);
              if (name && LAUNCH_CALLS.has(name)) {
                facts.shellSites.push({
                  line: lineAt(node.range[0]),
                  rule: "run launch",
                  text: text(node.callee),
                });
              }
              if (!name || !SQL_CALLS.has(name)) return;
              if (name === "prepare" && node.callee.type === "MemberExpression") {
                facts.shellSites.push({
                  line: lineAt(node.range[0]),
                  rule: "SQL",
                  text: text(node),
                });
                return;
              }
              const sql = node.arguments.some((arg: Node) => SQL_START.test(stringOf(arg) ?? ""));
              if (sql) {
                facts.shellSites.push({
                  line: lineAt(node.range[0]),
                  rule: "SQL",
                  text: text(node),
                });
              }
            },
            "Literal, TemplateLiteral"(node: Node) {
              const s = stringOf(node);
              if (s !== undefined && SQL_STATEMENT.test(s) && !isSqlCallArgument(node)) {
                facts.shellSites.push({
                  line: lineAt(node.range[0]),
                  rule: "SQL",
                  text: text(node),
                });
              }
            },
            TSAsExpression(node: Node) {
              const e = node.expression;
              if (node.typeAnnotation?.type !== "TSStringKeyword") return;
              if (e?.type !== "MemberExpression") return;
              const o = e.object;
              const onBody = (o?.type === "Identifier" && (o.name === "body" || o.name === "b")) ||
                (o?.type === "MemberExpression" && !o.computed && o.property?.name === "body");
              if (onBody) {
                facts.shellSites.push({
                  line: lineAt(node.range[0]),
                  rule: "body cast",
                  text: text(node),
                });
              }
            },
            FunctionDeclaration: fn,
            FunctionExpression: fn,
            ArrowFunctionExpression: fn,
          };
        },
      },
    },
  };
  lint.runPlugin(plugin, fileName, source);
  return facts;
}

/** Whether a node is a function of any form. */
function isFunction(node: Node): boolean {
  return node?.type === "FunctionDeclaration" || node?.type === "FunctionExpression" ||
    node?.type === "ArrowFunctionExpression";
}

/** Whether `new Worker(x)` names its module through `new URL(…)` (already read as a URL site). */
function namesUrl(node: Node): boolean {
  const url = node?.type === "MemberExpression" ? node.object : node;
  return url?.type === "NewExpression" && url.callee?.name === "URL";
}

/** Whether a literal is an argument of a database call (reported once, by the call). */
function isSqlCallArgument(node: Node): boolean {
  let p = node.parent;
  while (p?.type === "BinaryExpression") p = p.parent;
  return p?.type === "CallExpression" && SQL_CALLS.has(calleeName(p.callee) ?? "");
}

/** The name of a key: an identifier, a string, or `[computed]`. */
function keyName(key: Node, text: (n: Node) => string): string {
  if (key?.type === "Identifier" || key?.type === "PrivateIdentifier") return key.name;
  if (key?.type === "Literal") return String(key.value);
  return key ? `[${text(key)}]` : "?";
}

/** A function's own name, from what it is declared as or what it is handed to. */
function localName(fn: Node, text: (n: Node) => string): string {
  if (fn.id?.name) return fn.id.name;
  const p = fn.parent;
  if (p?.type === "VariableDeclarator") return keyName(p.id, text);
  if (p?.type === "Property") return keyName(p.key, text);
  if (p?.type === "MethodDefinition" || p?.type === "PropertyDefinition") {
    const cls = p.parent?.parent;
    return `${cls?.id?.name ?? "class"}.${keyName(p.key, text)}`;
  }
  if (p?.type === "AssignmentExpression") return text(p.left);
  if (p?.type === "ExportDefaultDeclaration") return "default";
  if (p?.type === "CallExpression" || p?.type === "NewExpression") {
    const first = p.arguments[0];
    const label = first?.type === "Literal" ? `(${text(first)})` : "";
    return `callback of ${text(p.callee).replace(/\s+/g, "")}${label}`;
  }
  return "anonymous";
}
