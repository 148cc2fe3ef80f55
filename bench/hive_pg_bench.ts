/**
 * The hive on PostgreSQL against SQLite, on a throwaway cluster (tests/helpers/postgres.ts):
 * - `POST /run` (a scripted model, so the hive and the journal are the work) with `wrk` at 16
 *   connections for one control-plane process on SQLite, one on PostgreSQL, and two processes on one
 *   PostgreSQL (8 connections each, at the same time: runs/s summed, the worse p99), medians of 3;
 * - authenticated `GET /stats` with 1,000,000 runs in the PostgreSQL hive (seeded in SQL,
 *   bench/seed_runs_pg.ts), one connection: p50 and p99 (target: p50 under 20 ms).
 *
 * @module
 */

import { stringify } from "yaml";
import { generateKey } from "../lib/keys/key_files.ts";
import { authorizeKey } from "../lib/keys/key_store.ts";
import { signToken } from "../lib/keys/tokens.ts";
import { closeHives, openHive } from "../lib/hive/open.ts";
import type { PgConnection } from "../lib/pg/connection.ts";
import { startTestCluster } from "../tests/helpers/postgres.ts";
import { fmt, report } from "./measure.ts";
import { frameworkFlags, type ServerProcess, startServer } from "./server_process.ts";
import { checkSeededAggregates, seedRunsPg } from "./seed_runs_pg.ts";
import { median, wrk, type WrkResult } from "./wrk.ts";
import { benchTempDir } from "./temp_dirs.ts";

const ROUNDS = 3;
const SECONDS = 5;
const CONNECTIONS = 16;
const BODY = JSON.stringify({ input: "hello" });

/** Runs the benchmark. */
export async function run(): Promise<void> {
  await using pg = await startTestCluster();
  const home = await benchTempDir("fw-bench-pg-");
  const dir = `${home}/bench-pg`;
  await Deno.mkdir(dir);
  await Deno.writeTextFile(
    `${dir}/harness.yaml`,
    stringify({ id: "bench-pg", model: { provider: "scripted", replies: [{ text: "ok" }] } }),
  );
  const key = await generateKey("bench", `${home}/keys`);
  await authorizeKey(`${dir}/.framework/authorized_keys.json`, "bench", key.public_key, [
    "run",
    "read",
  ]);
  const { token } = await signToken({ keyPath: key.path, scopes: ["run", "read"], ttl: 7200 });
  const headers = { authorization: `Bearer ${token}` };
  const flags = await frameworkFlags();
  const planes = (n: number, env: Record<string, string>) =>
    Promise.all(
      Array.from({ length: n }, () =>
        startServer("plane_server.ts", [dir, "32", "256"], home, flags, env)),
    );

  const sides: [string, number, Record<string, string>][] = [
    ["1 process, SQLite", 1, {}],
    ["1 process, PostgreSQL", 1, { FRAMEWORK_HIVE_URL: await pg.createDatabase() }],
    ["2 processes, one PostgreSQL", 2, { FRAMEWORK_HIVE_URL: await pg.createDatabase() }],
  ];
  for (const [name, n, env] of sides) {
    const servers = await planes(n, env);
    try {
      await load(servers, headers, 1); // warm-up
      const rounds: WrkResult[] = [];
      for (let i = 0; i < ROUNDS; i++) rounds.push(await load(servers, headers, SECONDS));
      report(`POST /run, ${CONNECTIONS} conn., ${name}`, {
        "runs/s": fmt(median(rounds.map((r) => r.rps))),
        p50: fmt(median(rounds.map((r) => r.p50_ms)), " ms"),
        p99: fmt(median(rounds.map((r) => r.p99_ms)), " ms"),
        ...(rounds.some((r) => r.errors)
          ? { errors: String(rounds.reduce((a, r) => a + r.errors, 0)) }
          : {}),
      });
    } finally {
      for (const s of servers) await s.stop();
    }
  }

  // /stats with a million runs in PostgreSQL.
  const sample = openHive(await pg.createDatabase()) as PgConnection;
  const differ = checkSeededAggregates(sample, { id: "x", dir: "/h/x" }, 2000);
  if (differ.length) throw new Error(`seeded statistics differ from the trigger's: ${differ}`);
  const url = await pg.createDatabase();
  const env = { FRAMEWORK_HIVE_URL: url };
  const [first] = await planes(1, env); // registers the harness and its folder
  await first!.stop();
  const db = openHive(url) as PgConnection;
  const realDir = await Deno.realPath(dir);
  const t0 = performance.now();
  seedRunsPg(db, { id: "bench-pg", dir: realDir }, 1_000_000);
  report("seed 1,000,000 runs in PostgreSQL (SQL)", {
    seconds: fmt((performance.now() - t0) / 1000, " s"),
  });
  closeHives();
  const [plane] = await planes(1, env);
  try {
    const at = `http://127.0.0.1:${plane!.port}/stats`;
    const stats = await (await fetch(at, { headers })).json();
    const durations: number[] = [];
    for (let i = 0; i < 300; i++) {
      const t = performance.now();
      await (await fetch(at, { headers })).arrayBuffer();
      durations.push(performance.now() - t);
    }
    durations.sort((a, b) => a - b);
    const q = (p: number) =>
      durations[Math.min(durations.length - 1, Math.floor(p * durations.length))]!;
    const busy = await wrk(at, 1, SECONDS, headers);
    report("GET /stats, 1M runs, PostgreSQL, one client", {
      total: String(stats.data.runs.total),
      p50: fmt(q(0.5), " ms"),
      p99: fmt(q(0.99), " ms"),
      "wrk 1 conn.": `${fmt(busy.rps)} rps, p50 ${fmt(busy.p50_ms, " ms")}, p99 ${
        fmt(busy.p99_ms, " ms")
      }`,
    });
  } finally {
    await plane!.stop();
  }
}

/** `wrk` against every server at once, the connections shared out: runs/s summed, the worse p99. */
async function load(
  servers: ServerProcess[],
  headers: Record<string, string>,
  seconds: number,
): Promise<WrkResult> {
  const each = await Promise.all(
    servers.map((s) =>
      wrk(`http://127.0.0.1:${s.port}/run`, CONNECTIONS / servers.length, seconds, headers, BODY)
    ),
  );
  return {
    rps: each.reduce((a, r) => a + r.rps, 0),
    p50_ms: Math.max(...each.map((r) => r.p50_ms)),
    p99_ms: Math.max(...each.map((r) => r.p99_ms)),
    errors: each.reduce((a, r) => a + r.errors, 0),
  };
}
