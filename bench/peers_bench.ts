/**
 * `POST /run` against the peers: the same scripted task (two model calls, one tool call) served by
 * the framework's control plane (every run's journal and hive row durable before it is answered), by
 * LangGraph.js (`createReactAgent`) and by Mastra (`Agent`), each behind a minimal HTTP server in its
 * own process, loaded with `wrk` at 1, 8, 16 and 64 connections, interleaved (medians of 7). The peers are installed with npm into a temporary folder
 * (reused between runs of the benchmark), never into the project's dependencies, and run on Node.
 *
 * @module
 */

import { fmt, report } from "./measure.ts";
import { startRunPlane } from "./run_plane.ts";
import type { ServerProcess } from "./server_process.ts";
import { interleavedAll, type Target } from "./wrk.ts";

/** The peers' packages, pinned so that figures compare across runs. */
const PEERS = {
  "@langchain/langgraph": "1.7.3",
  "@langchain/core": "1.4.0",
  "@mastra/core": "1.71.0",
  "zod": "4.6.7",
};
const CONNECTIONS = [1, 8, 16, 64];
/** Rounds per figure: each side's speed moves ±20% between 2-second rounds on a shared machine. */
const ROUNDS = 7;
const SECONDS = 2;
const BODY = JSON.stringify({ input: "hello" });

/**
 * Installs the peers into `<tmp>/framework-bench-peers-<versions>` unless they are there already.
 *
 * @returns The folder.
 */
async function installPeers(): Promise<string> {
  const tag = Object.values(PEERS).join("-").replace(/[^0-9a-z.-]/gi, "");
  const dir = `${Deno.env.get("TMPDIR") ?? "/tmp"}/framework-bench-peers-${tag}`;
  try {
    await Deno.stat(`${dir}/node_modules/@mastra/core/package.json`);
    await Deno.stat(`${dir}/node_modules/@langchain/langgraph/package.json`);
  } catch {
    console.log(`  (installing ${Object.keys(PEERS).join(", ")} into ${dir} with npm)`);
    await Deno.mkdir(dir, { recursive: true });
    await Deno.writeTextFile(
      `${dir}/package.json`,
      JSON.stringify({ private: true, type: "module", dependencies: PEERS }, null, 2),
    );
    const out = await new Deno.Command("npm", {
      args: ["install", "--no-audit", "--no-fund", "--loglevel=error"],
      cwd: dir,
      stdout: "null",
      stderr: "piped",
    }).output();
    if (!out.success) {
      throw new Error(`npm install failed: ${new TextDecoder().decode(out.stderr).slice(-600)}`);
    }
  }
  for (const file of ["langgraph_server.mjs", "mastra_server.mjs"]) {
    await Deno.copyFile(new URL(`./peers/${file}`, import.meta.url), `${dir}/${file}`);
  }
  return dir;
}

/** Starts `node <file>` in the peers' folder and reads the port it prints. */
async function startNode(dir: string, file: string): Promise<ServerProcess> {
  const child = new Deno.Command("node", {
    args: [file],
    cwd: dir,
    stdout: "piped",
    stderr: "piped",
  }).spawn();
  let tail = "";
  child.stderr.pipeThrough(new TextDecoderStream()).pipeTo(
    new WritableStream({ write: (chunk) => void (tail = (tail + chunk).slice(-2000)) }),
  ).catch(() => {});
  const reader = child.stdout.getReader();
  let out = "";
  while (!out.includes("\n")) {
    const { value, done } = await reader.read();
    if (done) throw new Error(`${file} exited before listening:\n${tail}`);
    out += new TextDecoder().decode(value);
  }
  reader.releaseLock();
  child.stdout.pipeTo(new WritableStream()).catch(() => {});
  return {
    port: Number(out.trim()),
    pid: child.pid,
    stop: async () => (child.kill("SIGKILL"), await child.status),
  };
}

/** Checks that a server answers the task with the final text "done" before it is measured. */
async function answersDone(target: Target): Promise<void> {
  const res = await fetch(target.url, {
    method: "POST",
    headers: { "content-type": "application/json", ...target.headers },
    body: target.post,
  });
  const doc = await res.json();
  if (res.status !== 200 || doc.data?.output !== "done") {
    throw new Error(`${target.url} did not do the task: ${res.status} ${JSON.stringify(doc)}`);
  }
}

/** Runs the benchmark. */
export async function run(): Promise<void> {
  const peersDir = await installPeers();
  const max = Math.max(...CONNECTIONS);
  const servers: ServerProcess[] = [];
  try {
    const plane = await startRunPlane("fw-bench-peers-", max);
    const ours = plane.server;
    servers.push(ours);
    const langgraph = await startNode(peersDir, "langgraph_server.mjs");
    servers.push(langgraph);
    const mastra = await startNode(peersDir, "mastra_server.mjs");
    servers.push(mastra);
    const targets: Target[] = [
      plane.target,
      { url: `http://127.0.0.1:${langgraph.port}/`, post: BODY },
      { url: `http://127.0.0.1:${mastra.port}/`, post: BODY },
    ];
    for (const t of targets) await answersDone(t);
    // Warm each up (JIT, caches) before measuring.
    await interleavedAll(targets, 4, 1, 2);
    const names = ["framework (journal + hive)", "LangGraph.js createReactAgent", "Mastra Agent"];
    for (const c of CONNECTIONS) {
      const [f, l, m] = await interleavedAll(targets, c, ROUNDS, SECONDS);
      for (const [i, r] of [f!, l!, m!].entries()) {
        report(`POST /run, ${c} conn., ${names[i]}`, {
          "runs/s": fmt(r.rps),
          p50: fmt(r.p50_ms, " ms"),
          p99: fmt(r.p99_ms, " ms"),
          ...(i === 0 ? {} : { "framework is": fmt(f!.rps / r.rps, "x") }),
          ...(r.errors ? { errors: String(r.errors) } : {}),
        });
      }
    }
  } finally {
    for (const s of servers) await s.stop();
  }
}
