/**
 * Memory of a long-running control plane: resident memory of the server process, and its V8 heap after
 * a full collection, before and after 10,000 requests of each route (1,000 for `POST /run`), printed
 * as MB per 1,000 requests. RSS also counts garbage V8 has not collected yet (it collects lazily while
 * the heap is far from its limit); the heap after a collection is what the process really keeps, so a
 * leak shows there as a steady figure per 1k.
 *
 * @module
 */

import { stringify } from "yaml";
import { generateKey } from "../lib/keys/key_files.ts";
import { authorizeKey } from "../lib/keys/key_store.ts";
import { signToken } from "../lib/keys/tokens.ts";
import { fmt, report } from "./measure.ts";
import { frameworkFlags, rssMb, startServer } from "./server_process.ts";
import { benchTempDir } from "./temp_dirs.ts";

/** One route of the benchmark: how to call it, and how often. */
interface Route {
  label: string;
  n: number;
  /** Requests in flight (default 8; runs stay within the run capacity). */
  parallel?: number;
  request: (i: number) => [string, RequestInit];
}

async function flood(base: string, route: Route, count: number, parallel = 8): Promise<void> {
  let next = 0;
  await Promise.all(Array.from({ length: parallel }, async () => {
    while (next < count) {
      const i = next++;
      const [path, init] = route.request(i);
      const res = await fetch(base + path, init);
      await res.arrayBuffer();
      if (res.status >= 500) throw new Error(`${route.label} answered ${res.status}`);
    }
  }));
}

/** The server's V8 heap in use after a full collection, in MB. */
async function heapAfterGc(base: string): Promise<number> {
  const m = await (await fetch(`${base}/__bench/memory`)).json();
  return m.heapUsed / 1024 / 1024;
}

/** Runs the benchmark. */
export async function run(): Promise<void> {
  const home = await benchTempDir("fw-bench-mem-");
  const dir = `${home}/bench-mem`;
  await Deno.mkdir(dir);
  await Deno.writeTextFile(
    `${dir}/harness.yaml`,
    stringify({
      id: "bench-mem",
      model: {
        provider: "scripted",
        replies: [
          { tool_calls: [{ name: "list_files", arguments: {} }] },
          { text: "done" },
        ],
      },
      tools: [{ builtin: "list_files" }],
      limits: { max_turns: 4 },
    }),
  );
  const key = await generateKey("bench", `${home}/keys`);
  await authorizeKey(`${dir}/.framework/authorized_keys.json`, "bench", key.public_key, ["*"]);
  const { token } = await signToken({ keyPath: key.path, scopes: ["*"] });
  const plane = await startServer(
    "plane_server.ts",
    dir,
    home,
    await frameworkFlags(["--expose-gc"]),
  );
  const base = `http://127.0.0.1:${plane.port}`;
  const headers = { authorization: `Bearer ${token}`, "content-type": "application/json" };
  const post = (body: unknown): RequestInit => ({
    method: "POST",
    headers,
    body: JSON.stringify(body),
  });
  try {
    const first = await (await fetch(`${base}/run`, post({ input: "hello" }))).json();
    const runId = first.data.run_id as string;
    const proposal = await (await fetch(`${base}/evolve/propose`, post({}))).json();
    const proposalId = (proposal.data?.id ?? "prop_missing") as string;
    const routes: Route[] = [
      { label: "GET /health", n: 10_000, request: () => ["/health", {}] },
      { label: "GET /stats", n: 10_000, request: () => ["/stats", { headers }] },
      { label: "GET /trace/{id}", n: 10_000, request: () => [`/trace/${runId}`, { headers }] },
      { label: "POST /validate", n: 10_000, request: () => ["/validate", post({})] },
      { label: "GET /proposals", n: 10_000, request: () => ["/proposals", { headers }] },
      {
        label: "GET /proposals/{id}",
        n: 10_000,
        request: () => [`/proposals/${proposalId}`, { headers }],
      },
      {
        label: "POST /set",
        n: 10_000,
        request: (i) => ["/set", post({ path: "limits.max_turns", value: 4 + (i % 3) })],
      },
      {
        label: "POST /add/skill + /remove",
        n: 10_000,
        request: (i) =>
          i % 2 === 0
            ? ["/add/skill", post({ name: "s", description: "d", instructions: "i" })]
            : ["/remove", post({ path: "skills.s" })],
      },
      { label: "GET (unknown route, 404)", n: 10_000, request: () => ["/nope", { headers }] },
      {
        label: "POST /run",
        n: 1_000,
        parallel: 4,
        request: (i) => ["/run", post({ input: `hello ${i}` })],
      },
    ];
    for (const route of routes) {
      await flood(base, route, Math.max(200, route.n / 10), route.parallel); // warm up code and caches
      const heapBefore = await heapAfterGc(base);
      const before = await rssMb(plane.pid);
      await flood(base, route, route.n, route.parallel);
      const after = await rssMb(plane.pid);
      const heapAfter = await heapAfterGc(base);
      const per1k = (mb: number) => fmt((mb / route.n) * 1000, " MB/1k");
      report(`${route.label} ×${route.n}`, {
        rss: `${fmt(before, "")} → ${fmt(after, " MB")} (${per1k(after - before)})`,
        "heap after gc": `${fmt(heapBefore, "")} → ${fmt(heapAfter, " MB")} (${
          per1k(heapAfter - heapBefore)
        })`,
      });
    }
  } finally {
    await plane.stop();
  }
  // Resident memory per run, in a fresh server: after 100 runs and after 10,000 (target: ≤ 1.2×).
  const fresh = await startServer("plane_server.ts", dir, home, await frameworkFlags());
  try {
    const base = `http://127.0.0.1:${fresh.port}`;
    const runs: Route = {
      label: "POST /run",
      n: 0,
      parallel: 4,
      request: (i) => ["/run", post({ input: `hello ${i}` })],
    };
    await flood(base, runs, 100, 4);
    const at100 = await rssMb(fresh.pid);
    const t0 = performance.now();
    await flood(base, runs, 10_000 - 100, 4);
    const seconds = (performance.now() - t0) / 1000;
    const at10k = await rssMb(fresh.pid);
    report("RSS after 100 runs → after 10,000 runs", {
      rss: `${fmt(at100, "")} → ${fmt(at10k, " MB")}`,
      ratio: fmt(at10k / at100, "x"),
      runs_per_s: fmt(9_900 / seconds),
    });
  } finally {
    await fresh.stop();
  }
}
