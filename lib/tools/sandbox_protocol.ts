/**
 * The sandbox's inside: loads a harness's code modules and calls their exports, capturing console
 * output so it never reaches the framework's stdout. Shared by the child-process and Worker entries.
 *
 * @module
 */

/** A request to the sandbox. */
export interface SandboxRequest {
  id: number;
  op: "call" | "describe";
  url: string;
  name: string;
  args?: unknown;
  ctx?: unknown;
}

/** An answer from the sandbox. */
export interface SandboxResponse {
  id: number;
  ok: boolean;
  value?: unknown;
  error?: { name: string; message: string };
  logs: string[];
}

const modules = new Map<string, Promise<Record<string, unknown>>>();
let logs: string[] = [];

function safeJson(value: unknown): string {
  try {
    return JSON.stringify(value) ?? String(value);
  } catch {
    return String(value);
  }
}

/** Replaces the console so output is captured per call. */
export function captureConsole(): void {
  for (const level of ["log", "info", "warn", "error", "debug", "trace"] as const) {
    (console as unknown as Record<string, unknown>)[level] = (...parts: unknown[]) => {
      const line = parts.map((p) => (typeof p === "string" ? p : safeJson(p))).join(" ");
      if (logs.length < 200) logs.push(level === "log" ? line : `[${level}] ${line}`);
    };
  }
}

/** Makes a result plain data (JSON-safe). */
function plain(value: unknown): unknown {
  if (
    value === undefined || value === null || ["string", "number", "boolean"].includes(typeof value)
  ) return value;
  try {
    return JSON.parse(JSON.stringify(value));
  } catch {
    return String(value);
  }
}

function load(url: string): Promise<Record<string, unknown>> {
  let mod = modules.get(url);
  if (!mod) {
    mod = import(url) as Promise<Record<string, unknown>>;
    modules.set(url, mod);
  }
  return mod;
}

type Exported = ((...a: unknown[]) => unknown) & { schema?: unknown; description?: unknown };

/**
 * Answers one request.
 *
 * @param request The request.
 * @returns The answer.
 */
export async function handleSandboxRequest(request: SandboxRequest): Promise<SandboxResponse> {
  const { id, op, url, name, args, ctx } = request;
  logs = [];
  try {
    const mod = await load(url);
    const target = mod[name] as Exported | undefined;
    if (op === "describe") {
      const functions = Object.keys(mod).filter((k) => typeof mod[k] === "function");
      return {
        id,
        ok: true,
        logs,
        value: {
          exported: name in mod,
          type: typeof target,
          schema: plain(
            target?.schema ?? mod[`${name}Schema`] ??
              (functions.length === 1 ? mod.schema : undefined),
          ),
          description: typeof target?.description === "string" ? target.description : undefined,
        },
      };
    }
    if (typeof target !== "function") throw new TypeError(`${name} is not an exported function`);
    const value = await target(args, ctx);
    return { id, ok: true, logs, value: plain(value) };
  } catch (err) {
    const e = err as Error;
    return {
      id,
      ok: false,
      logs,
      error: { name: e?.name ?? "Error", message: String(e?.message ?? err) },
    };
  }
}
