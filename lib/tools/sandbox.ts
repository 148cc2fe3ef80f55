/**
 * Running harness code safely: every code ref (tools, guardrails, validators, hooks, playbook gates)
 * runs outside the framework's own process, with permissions narrowed to reading the harness folder
 * and writing its `workspace/`, plus only what the spec's `permissions` grant: no other files, no
 * network, no subprocesses, no environment. Each call has a time limit; a call that overruns is
 * stopped by killing its process.
 *
 * The sandbox is a child `deno run` process with `--allow-read/--allow-write/...` flags, because Deno
 * 2.9's `Worker.terminate()` cannot stop an endless loop (the thread keeps a core busy;
 * denoland/deno#35657). Where no `deno` executable exists (a compiled binary) a narrowed Worker is used.
 *
 * @module
 */

import { basename, resolve } from "node:path";
import { pathToFileURL } from "node:url";
import { FrameworkError } from "../errors.ts";
import { resolveSafePath } from "../fs/safe_path.ts";
import { workspaceDir } from "../paths.ts";
import type { SandboxResponse } from "./sandbox_protocol.ts";
import { harnessReads } from "./sandbox_reads.ts";
import { ToolError } from "./tool.ts";

/** Grants beyond the default sandbox (the spec's `permissions`). */
export interface Grant {
  read?: string[];
  write?: string[];
  net?: string[];
  env?: string[];
  /** Allow imports of remote, `npm:` and `jsr:` modules (they fetch from the network). */
  imports?: boolean;
}

/** What an export looks like, from {@link Sandbox.describe}. */
export interface ExportInfo {
  exported: boolean;
  type: string;
  schema?: Record<string, unknown>;
  description?: string;
}

/** A sandbox for one permission set. */
export interface Sandbox {
  /** Calls `export(args, ctx)` of a code ref; the value and captured console lines. */
  call(
    ref: string,
    args: unknown,
    ctx: unknown,
    timeoutMs: number,
  ): Promise<{ value: unknown; logs: string[] }>;
  /** Loads a module and describes one export. */
  describe(ref: string, timeoutMs?: number): Promise<ExportInfo>;
  /** Stops the sandbox; resolves once its process is gone. */
  close(): Promise<void>;
}

/** How requests reach the sandbox and answers come back. */
interface Transport {
  send(message: unknown): void;
  /** Stops the sandbox; resolves once it is gone. */
  kill(): Promise<void>;
}

/**
 * Splits a code ref into module path and export name.
 *
 * @param ref `path/module.ts#export`.
 * @returns The parts.
 */
export function splitCodeRef(ref: string): { path: string; name: string } {
  const hash = ref.lastIndexOf("#");
  return { path: ref.slice(0, hash), name: ref.slice(hash + 1) };
}

/** The resolved permission lists of a sandbox. */
interface Permissions {
  read: string[];
  /** Sensitive paths inside the readable folders, denied even though their folder is allowed. */
  denyRead: string[];
  /** The same promise as an allow-list (the Worker cannot deny inside an allowed folder). */
  readAllowList: string[];
  write: string[];
  net: string[];
  env: string[];
  imports: boolean;
}

function permissionsFor(
  harnessDir: string,
  grant: Grant,
  traceDirs: readonly string[],
): Permissions {
  const rel = (p: string) => resolve(harnessDir, p);
  const granted = (grant.read ?? []).map(rel);
  const reads = harnessReads(harnessDir, traceDirs, granted);
  const workspace = workspaceDir(harnessDir);
  let workspaceExists = true;
  try {
    Deno.lstatSync(workspace);
  } catch {
    workspaceExists = false;
  }
  return {
    read: [harnessDir, ...granted],
    denyRead: reads.deny,
    // A workspace made after the start is still readable to the code that writes it.
    readAllowList: [...reads.allow, ...(workspaceExists ? [] : [workspace]), ...granted],
    write: [workspace, ...(grant.write ?? []).map(rel)],
    net: grant.net ?? [],
    env: grant.env ?? [],
    imports: grant.imports === true,
  };
}

/**
 * The `deno run` flags of a sandbox process: only what is listed is allowed; sensitive paths inside
 * the folder are denied; everything else (run, ffi, sys, other files, network, environment, remote
 * and package imports) is denied without prompting.
 *
 * @param harnessDir The harness folder.
 * @param grant Extra grants.
 * @param traceDirs The protected trace folders, denied where they lie inside the harness.
 * @returns The flags.
 */
export function sandboxFlags(
  harnessDir: string,
  grant: Grant = {},
  traceDirs: readonly string[] = [],
): string[] {
  const p = permissionsFor(harnessDir, grant, traceDirs);
  return [
    `--allow-read=${p.read.join(",")}`,
    ...(p.denyRead.length ? [`--deny-read=${p.denyRead.join(",")}`] : []),
    `--allow-write=${p.write.join(",")}`,
    ...(p.net.length ? [`--allow-net=${p.net.join(",")}`] : []),
    ...(p.env.length ? [`--allow-env=${p.env.join(",")}`] : []),
    ...(p.imports ? [] : ["--no-remote", "--no-npm"]),
    "--no-prompt",
  ];
}

/** Where sandboxed code runs: a child `deno` process, or a Worker (a compiled binary). */
export type SandboxMode = "process" | "worker";

/**
 * The sandbox mode of this process: `FRAMEWORK_SANDBOX` when set, else a child process when a `deno`
 * executable runs this process (so children can be started), else a Worker.
 *
 * @returns The mode.
 */
export function sandboxMode(): SandboxMode {
  const mode = Deno.env.get("FRAMEWORK_SANDBOX");
  if (mode === "worker" || mode === "process") return mode;
  runsUnderDeno ??= /^deno(\.exe)?$/i.test(basename(Deno.execPath()));
  return runsUnderDeno ? "process" : "worker";
}

/** Whether the executable is `deno` itself (fixed for the life of the process). */
let runsUnderDeno: boolean | undefined;

function processTransport(
  harnessDir: string,
  grant: Grant,
  traceDirs: readonly string[],
  onMessage: (m: SandboxResponse) => void,
  onExit: (why: string) => void,
  onStray: (text: string) => void,
): Transport {
  const env: Record<string, string> = { NO_COLOR: "1" };
  for (const name of ["PATH", "HOME", "DENO_DIR", "XDG_CACHE_HOME", "TMPDIR"]) {
    const v = Deno.env.get(name);
    if (v !== undefined) env[name] = v;
  }
  for (const name of grant.env ?? []) {
    const v = Deno.env.get(name);
    if (v !== undefined) env[name] = v;
  }
  const child = new Deno.Command(Deno.execPath(), {
    args: [
      "run",
      "--quiet",
      "--no-lock",
      ...sandboxFlags(harnessDir, grant, traceDirs),
      new URL("./sandbox_child.ts", import.meta.url).href,
    ],
    cwd: harnessDir,
    clearEnv: true,
    env,
    stdin: "piped",
    stdout: "piped",
    stderr: "piped",
  }).spawn();
  const writer = child.stdin.getWriter();
  const encoder = new TextEncoder();
  // Answers come behind "\x1e<nonce>"; anything else on stdout is the code's own output.
  const nonce = crypto.randomUUID();
  const marker = `\x1e${nonce}`;
  writer.write(encoder.encode(nonce + "\n")).catch(() => {});
  let stderrTail = "";
  let killed = false;
  const stdoutDone = (async () => {
    const decoder = new TextDecoder();
    let buffer = "";
    for await (const chunk of child.stdout) {
      buffer += decoder.decode(chunk, { stream: true });
      while (true) {
        const at = buffer.indexOf(marker);
        if (at < 0) {
          // Keep a tail that could be the start of a marker; the rest is stray output.
          const keep = Math.max(0, buffer.length - marker.length);
          if (keep > 0) {
            onStray(buffer.slice(0, keep));
            buffer = buffer.slice(keep);
          }
          break;
        }
        const end = buffer.indexOf("\n", at);
        if (end < 0) break;
        if (at > 0) onStray(buffer.slice(0, at));
        try {
          onMessage(JSON.parse(buffer.slice(at + marker.length, end)));
        } catch {
          // a damaged answer: its call times out
        }
        buffer = buffer.slice(end + 1);
      }
    }
  })().catch(() => {});
  const stderrDone = (async () => {
    const decoder = new TextDecoder();
    for await (const chunk of child.stderr) {
      stderrTail = (stderrTail + decoder.decode(chunk)).slice(-2000);
    }
  })().catch(() => {});
  const exited = child.status.then(async (s) => {
    await Promise.all([stdoutDone, stderrDone]);
    if (!killed) {
      onExit(
        `The code process exited (code ${s.code})${
          stderrTail ? `: ${stderrTail.trim().split("\n").slice(-3).join(" ")}` : ""
        }`,
      );
    }
  });
  return {
    send(message) {
      writer.write(encoder.encode(JSON.stringify(message) + "\n")).catch(() => {});
    },
    kill() {
      if (!killed) {
        killed = true;
        writer.close().catch(() => {});
        try {
          child.kill("SIGKILL");
        } catch {
          // already gone
        }
      }
      return exited;
    },
  };
}

function workerTransport(
  harnessDir: string,
  grant: Grant,
  traceDirs: readonly string[],
  onMessage: (m: SandboxResponse) => void,
  onExit: (why: string) => void,
): Transport {
  // A Worker cannot deny paths inside an allowed folder: it reads an explicit allow-list instead.
  const p = permissionsFor(harnessDir, grant, traceDirs);
  const worker = new Worker(new URL("./sandbox_worker.ts", import.meta.url).href, {
    type: "module",
    deno: {
      permissions: {
        read: p.readAllowList,
        write: p.write,
        net: p.net.length ? p.net : false,
        env: p.env.length ? p.env : false,
        run: false,
        ffi: false,
        sys: false,
        import: false,
      },
    },
  } as WorkerOptions);
  worker.onmessage = (e: MessageEvent) => onMessage(e.data);
  worker.onerror = (e: ErrorEvent) => {
    e.preventDefault();
    onExit(`The code crashed: ${e.message}`);
  };
  return {
    send: (m) => worker.postMessage(m),
    kill: () => {
      worker.terminate();
      return Promise.resolve();
    },
  };
}

function toToolError(error: { name: string; message: string }): ToolError {
  if (/--no-remote|--no-npm/.test(error.message)) {
    return new ToolError(
      "permission_denied",
      `The sandbox denied an import: ${error.message}; grant permissions.imports to allow it`,
    );
  }
  if (error.name === "NotCapable" || error.name === "PermissionDenied") {
    return new ToolError("permission_denied", `The sandbox denied it: ${error.message}`);
  }
  return new ToolError("failed", `${error.name}: ${error.message}`);
}

type Pending = {
  resolve: (v: { value: unknown; logs: string[] }) => void;
  reject: (e: unknown) => void;
};

/**
 * Creates a sandbox for a harness and a permission set. It starts on first use and restarts after a
 * call is stopped.
 *
 * @example
 * ```ts
 * const box = createSandbox("/h");
 * const { value } = await box.call("tools/lookup.ts#lookup", { id: 1 }, {}, 10_000);
 * await box.close();
 * ```
 * @param harnessDir The harness folder (absolute, symlinks resolved).
 * @param grant Extra grants from the spec.
 * @param traceDirs The protected trace folders, never readable by the code.
 * @param mode A child process or a Worker (default {@link sandboxMode}).
 * @returns The sandbox.
 */
export function createSandbox(
  harnessDir: string,
  grant: Grant = {},
  traceDirs: readonly string[] = [],
  mode: SandboxMode = sandboxMode(),
): Sandbox {
  let transport: Transport | undefined;
  let nextId = 1;
  const pending = new Map<number, Pending>();
  const stopping = new Set<Promise<void>>();
  let stray: string[] = [];

  const failAll = (err: unknown) => {
    for (const p of pending.values()) p.reject(err);
    pending.clear();
  };
  const stop = () => {
    if (transport) {
      const gone = transport.kill();
      stopping.add(gone);
      gone.finally(() => stopping.delete(gone));
    }
    transport = undefined;
  };
  const start = (): Transport => {
    if (transport) return transport;
    const onMessage = (m: SandboxResponse) => {
      const p = pending.get(m.id);
      if (!p) return;
      pending.delete(m.id);
      const logs = stray.length ? [...m.logs, ...stray.map((t) => `[stdout] ${t}`)] : m.logs;
      stray = [];
      if (m.ok) p.resolve({ value: m.value, logs });
      else p.reject(Object.assign(toToolError(m.error!), { logs }));
    };
    const onStray = (text: string) => {
      const trimmed = text.replace(/\n+$/, "");
      if (trimmed && stray.length < 200) stray.push(trimmed.slice(0, 2000));
    };
    const onExit = (why: string) => {
      transport = undefined;
      failAll(new ToolError("failed", why));
    };
    transport = mode === "process"
      ? processTransport(harnessDir, grant, traceDirs, onMessage, onExit, onStray)
      : workerTransport(harnessDir, grant, traceDirs, onMessage, onExit);
    return transport;
  };

  const send = async (
    op: "call" | "describe",
    ref: string,
    args: unknown,
    ctx: unknown,
    timeoutMs: number,
  ) => {
    const { path, name } = splitCodeRef(ref);
    let url: string;
    try {
      url = pathToFileURL((await resolveSafePath(harnessDir, path)).absolute).href;
    } catch (err) {
      if (err instanceof FrameworkError) {
        throw new ToolError("refused", `Code ref ${JSON.stringify(ref)}: ${err.message}`);
      }
      throw err;
    }
    const t = start();
    const id = nextId++;
    return await new Promise<{ value: unknown; logs: string[] }>((resolvePromise, reject) => {
      const timer = setTimeout(() => {
        // Code cannot be interrupted from outside: stop the whole sandbox; it restarts on next use.
        pending.delete(id);
        stop();
        failAll(
          new ToolError("timeout", "Stopped together with a call that overran its time limit"),
        );
        reject(
          new ToolError(
            "timeout",
            `${ref} did not finish within ${timeoutMs / 1000} s and was stopped`,
          ),
        );
      }, timeoutMs);
      pending.set(id, {
        resolve: (v) => {
          clearTimeout(timer);
          resolvePromise(v);
        },
        reject: (e) => {
          clearTimeout(timer);
          reject(e);
        },
      });
      t.send({ id, op, url, name, args, ctx });
    });
  };

  return {
    call: (ref, args, ctx, timeoutMs) => send("call", ref, args, ctx, timeoutMs),
    async describe(ref, timeoutMs = 30_000) {
      return (await send("describe", ref, undefined, undefined, timeoutMs)).value as ExportInfo;
    },
    async close() {
      stop();
      failAll(new ToolError("failed", "The sandbox was closed"));
      await Promise.all([...stopping]);
    },
  };
}

/** Sandboxes of one run, one per distinct permission set. */
export interface SandboxPool {
  /** The sandbox for a grant. */
  for(grant?: Grant): Sandbox;
  /** Stops every sandbox; resolves once they are gone. */
  close(): Promise<void>;
}

/**
 * Creates a pool of sandboxes for a run.
 *
 * @param harnessDir The harness folder.
 * @param traceDirs The protected trace folders (today's and the former ones), never readable by the
 *   code.
 * @param mode A child process or a Worker (default {@link sandboxMode}).
 * @returns The pool.
 */
export function createSandboxPool(
  harnessDir: string,
  traceDirs: readonly string[] = [],
  mode: SandboxMode = sandboxMode(),
): SandboxPool {
  const boxes = new Map<string, Sandbox>();
  return {
    for(grant = {}) {
      const key = JSON.stringify([
        grant.read ?? [],
        grant.write ?? [],
        grant.net ?? [],
        grant.env ?? [],
        !!grant.imports,
      ]);
      let box = boxes.get(key);
      if (!box) {
        box = createSandbox(harnessDir, grant, traceDirs, mode);
        boxes.set(key, box);
      }
      return box;
    },
    async close() {
      const all = [...boxes.values()];
      boxes.clear();
      await Promise.all(all.map((b) => b.close()));
    },
  };
}
