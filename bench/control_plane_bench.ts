/**
 * The control plane's HTTP limits, measured with `wrk` at 1, 16 and 64 connections, interleaved with a
 * bare `Deno.serve` (medians of 5):
 * - `GET /health` (no token) against a bare server answering the same bytes;
 * - authenticated `GET /stats` against a bare server doing the same required work per request (read
 *   the key store, verify the same EdDSA token) and answering the same bytes; once with one token
 *   (a monitor's poll: the control plane remembers a signature that held), once with 2,000 tokens
 *   sent in turn (each one's signature checked on both sides);
 * - `/health` latency while one client polls `/stats` with 1,000,000 runs in the hive.
 *
 * Each server runs in its own process with its request log on (written to a pipe nobody blocks on).
 *
 * @module
 */

import { stringify } from "yaml";
import { generateKey } from "../lib/keys/key_files.ts";
import { authorizeKey } from "../lib/keys/key_store.ts";
import { signToken } from "../lib/keys/tokens.ts";
import { fmt, report } from "./measure.ts";
import { frameworkFlags, startServer } from "./server_process.ts";
import { seedRuns } from "./seed_runs.ts";
import { interleaved, type Target, wrk } from "./wrk.ts";
import { benchTempDir } from "./temp_dirs.ts";

const CONNECTIONS = [1, 16, 64];
const ROUNDS = 5;
const SECONDS = 2;
/** Tokens sent in turn for the first-sight figure: more than the verifier remembers (1,024). */
const FIRST_SIGHT_TOKENS = 2_000;

/** Loads the control plane and a bare server in turn, and prints the plane's figures beside. */
async function versusBare(name: string, plane: Target, bare: Target, connections: number) {
  const { a: p, b } = await interleaved(plane, bare, connections, ROUNDS, SECONDS);
  report(name, {
    rps: fmt(p.rps),
    p50: fmt(p.p50_ms, " ms"),
    p99: fmt(p.p99_ms, " ms"),
    "vs bare": `${fmt(p.rps / b.rps, "x")} (bare ${fmt(b.rps)} rps, p99 ${fmt(b.p99_ms, " ms")})`,
    ...(p.errors + b.errors ? { errors: String(p.errors + b.errors) } : {}),
  });
}

/** Runs the benchmark. */
export async function run(): Promise<void> {
  const home = await benchTempDir("fw-bench-cp-");
  const dir = `${home}/bench-cp`;
  await Deno.mkdir(dir);
  await Deno.writeTextFile(
    `${dir}/harness.yaml`,
    stringify({ id: "bench-cp", model: { provider: "scripted", replies: [{ text: "ok" }] } }),
  );
  const store = `${dir}/.framework/authorized_keys.json`;
  const key = await generateKey("bench", `${home}/keys`);
  await authorizeKey(store, "bench", key.public_key, ["read"]);
  const { token } = await signToken({ keyPath: key.path, scopes: ["read"], ttl: 3600 });
  const auth = { authorization: `Bearer ${token}` };
  let plane = await startServer("plane_server.ts", dir, home, await frameworkFlags());
  try {
    const base = `http://127.0.0.1:${plane.port}`;
    for (const [path, headers] of [["/health", {}], ["/stats", auth]] as const) {
      const body = new Uint8Array(await (await fetch(base + path, { headers })).arrayBuffer());
      await Deno.writeFile(`${home}/body`, body);
      const bare = path === "/stats"
        ? await startServer("bare_auth_server.ts", [`${home}/body`, store], home)
        : await startServer("bare_server.ts", `${home}/body`, home);
      const bareUrl = `http://127.0.0.1:${bare.port}/`;
      try {
        await wrk(bareUrl, 16, 1, headers);
        await wrk(base + path, 16, 1, headers);
        for (const c of CONNECTIONS) {
          await versusBare(
            `GET ${path}${path === "/stats" ? " (authenticated)" : ""}, ${c} conn.`,
            { url: base + path, headers },
            { url: bareUrl, headers },
            c,
          );
        }
      } finally {
        await bare.stop();
      }
    }

    // A token the control plane has not seen on every request: more tokens, sent in turn, than it
    // remembers as verified (lib/keys/authenticate.ts), so each request's signature is checked, as
    // the bare server checks every one.
    const tokens: string[] = [];
    for (let i = 0; i < FIRST_SIGHT_TOKENS; i++) {
      tokens.push((await signToken({ keyPath: key.path, scopes: ["read"], ttl: 3600 })).token);
    }
    const body = new Uint8Array(
      await (await fetch(`${base}/stats`, { headers: auth })).arrayBuffer(),
    );
    await Deno.writeFile(`${home}/body`, body);
    const bare = await startServer("bare_auth_server.ts", [`${home}/body`, store], home);
    try {
      for (const c of CONNECTIONS) {
        await versusBare(
          `GET /stats, a token not seen before, ${c} conn.`,
          { url: `${base}/stats`, tokens },
          { url: `http://127.0.0.1:${bare.port}/`, tokens },
          c,
        );
      }
    } finally {
      await bare.stop();
    }

    // A million runs in the hive: /stats answers from maintained aggregates, so /health never waits.
    await plane.stop();
    const t0 = performance.now();
    await seedRuns(`${home}/hive.db`, { id: "bench-cp", dir: await Deno.realPath(dir) }, 1_000_000);
    report("seed 1,000,000 runs", { seconds: fmt((performance.now() - t0) / 1000, " s") });
    plane = await startServer("plane_server.ts", dir, home, await frameworkFlags());
    const at = `http://127.0.0.1:${plane.port}`;
    const stats = await (await fetch(`${at}/stats`, { headers: auth })).json();
    report("  /stats at 1M runs", { total: String(stats.data.runs.total) });
    const quiet = await wrk(`${at}/health`, 16, SECONDS);
    let polling = true;
    let polls = 0;
    let slowest = 0;
    const poller = (async () => {
      while (polling) {
        const t = performance.now();
        await (await fetch(`${at}/stats`, { headers: auth })).arrayBuffer();
        slowest = Math.max(slowest, performance.now() - t);
        polls++;
      }
    })();
    const busy = await wrk(`${at}/health`, 16, SECONDS);
    polling = false;
    await poller;
    report("GET /health, 16 conn., 1M runs, idle", {
      rps: fmt(quiet.rps),
      p50: fmt(quiet.p50_ms, " ms"),
      p99: fmt(quiet.p99_ms, " ms"),
    });
    report("GET /health, 16 conn., 1M runs, /stats polled", {
      rps: fmt(busy.rps),
      p50: fmt(busy.p50_ms, " ms"),
      p99: fmt(busy.p99_ms, " ms"),
      "/stats polls": `${polls} (slowest ${fmt(slowest, " ms")})`,
    });
  } finally {
    await plane.stop();
  }
}
