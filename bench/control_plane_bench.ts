/**
 * Requests per second and p50/p99 latency of the control plane's `GET /health` (no token) and
 * authenticated `GET /stats`, beside a bare `Deno.serve` answering the same bytes. Each server runs in
 * its own process; the load comes from this one (16 requests in flight).
 *
 * @module
 */

import { stringify } from "yaml";
import { generateKey } from "../lib/keys/key_files.ts";
import { authorizeKey } from "../lib/keys/key_store.ts";
import { signToken } from "../lib/keys/tokens.ts";
import { fmt, report, summarize, type Timing } from "./measure.ts";
import { startServer } from "./server_process.ts";

async function load(
  url: string,
  headers: HeadersInit,
  total: number,
  inFlight = 16,
): Promise<Timing> {
  const durations: number[] = [];
  let next = 0;
  const t0 = performance.now();
  await Promise.all(Array.from({ length: inFlight }, async () => {
    while (next < total) {
      next++;
      const t = performance.now();
      const res = await fetch(url, { headers });
      await res.arrayBuffer();
      if (!res.ok) throw new Error(`${url} answered ${res.status}`);
      durations.push(performance.now() - t);
    }
  }));
  const timing = summarize(durations);
  timing.per_second = total / ((performance.now() - t0) / 1000);
  return timing;
}

/** Runs the benchmark. */
export async function run(): Promise<void> {
  const home = await Deno.makeTempDir({ prefix: "fw-bench-cp-" });
  const dir = `${home}/bench-cp`;
  await Deno.mkdir(dir);
  await Deno.writeTextFile(
    `${dir}/harness.yaml`,
    stringify({ id: "bench-cp", model: { provider: "scripted", replies: [{ text: "ok" }] } }),
  );
  const key = await generateKey("bench", `${home}/keys`);
  await authorizeKey(`${dir}/.framework/authorized_keys.json`, "bench", key.public_key, ["read"]);
  const { token } = await signToken({ keyPath: key.path, scopes: ["read"] });
  const plane = await startServer("plane_server.ts", dir, home);
  try {
    const base = `http://127.0.0.1:${plane.port}`;
    const auth = { authorization: `Bearer ${token}` };
    for (const [path, headers] of [["/health", {}], ["/stats", auth]] as const) {
      const body = new Uint8Array(await (await fetch(base + path, { headers })).arrayBuffer());
      await Deno.writeFile(`${home}/body`, body);
      const bare = await startServer("bare_server.ts", `${home}/body`, home);
      try {
        await load(`http://127.0.0.1:${bare.port}/`, {}, 300);
        await load(base + path, headers, 300);
        const b = await load(`http://127.0.0.1:${bare.port}/`, {}, 3000);
        const p = await load(base + path, headers, 3000);
        report(`GET ${path}${path === "/stats" ? " (authenticated)" : ""}`, {
          rps: fmt(p.per_second),
          p50: fmt(p.p50_ms, " ms"),
          p99: fmt(p.p99_ms, " ms"),
        });
        report(`  bare Deno.serve, same ${body.length} bytes`, {
          rps: fmt(b.per_second),
          p50: fmt(b.p50_ms, " ms"),
          p99: fmt(b.p99_ms, " ms"),
          ratio: `${fmt(b.per_second / p.per_second, "x")} the control plane's rps`,
        });
      } finally {
        await bare.stop();
      }
    }
  } finally {
    await plane.stop();
    await Deno.remove(home, { recursive: true });
  }
}
