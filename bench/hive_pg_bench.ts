/**
 * The hive on PostgreSQL against SQLite, on a throwaway cluster (tests/helpers/postgres.ts):
 * - `POST /run` (a scripted model, so the hive and the journal are the work) with `wrk` at 16
 *   connections for one control-plane process on SQLite, one on PostgreSQL, and two processes on one
 *   PostgreSQL (8 connections each, at the same time: runs/s summed, the worse p99), medians of 5
 *   rounds the three take in turn (their servers all up, the order alternating), with the ratio of
 *   two processes to one (target: at least 1.6×);
 *   beside them, where the CPU went per run (bench/process_cpu.ts: the control planes' main threads
 *   and their other threads, the PostgreSQL server's processes, wrk), how busy the machine's cores
 *   were (every process on them, other work included), and on PostgreSQL the bridge's waited round
 *   trips per run and the time a process's main thread spent blocked in them — so the reader sees
 *   whether one process was waiting (a second would scale) or the cores were saturated;
 * - one statement's round trip through the bridge in this process, one after another: wall time and
 *   the CPU of this process's main thread, its other threads (the bridge's worker) and PostgreSQL;
 * - authenticated `GET /stats` with 1,000,000 runs in the PostgreSQL hive (seeded in SQL,
 *   bench/seed_runs_pg.ts), one connection: p50 and p99 (target: p50 under 20 ms).
 *
 * `HIVE_PG_BENCH_QUICK=1` leaves out the million runs (their seeding takes minutes).
 *
 * @module
 */

import { stringify } from "yaml";
import { generateKey } from "../lib/keys/key_files.ts";
import { authorizeKey } from "../lib/keys/key_store.ts";
import { signToken } from "../lib/keys/tokens.ts";
import { closeHives, openHive } from "../lib/hive/open.ts";
import { openPostgres, type PgConnection } from "../lib/pg/connection.ts";
import { startTestCluster } from "../tests/helpers/postgres.ts";
import { fmt, report } from "./measure.ts";
import { frameworkFlags, type ServerProcess, startServer } from "./server_process.ts";
import { checkSeededAggregates, seedRunsPg } from "./seed_runs_pg.ts";
import { median, quietMachine, wrk, type WrkResult } from "./wrk.ts";
import { benchTempDir } from "./temp_dirs.ts";
import { cpuBetween, machineCpu, postgresPids, threadCpu } from "./process_cpu.ts";
import type { BridgeCounts } from "../lib/pg/connection.ts";

const ROUNDS = 5;
const SECONDS = 4;
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
  // Every side's servers are up from the start and the sides take turns round by round, the order
  // alternating, so the drift of the shared machine falls on all alike (a side waiting its turn is
  // idle); the ratios are of medians measured in the same minutes.
  const started: ServerProcess[][] = [];
  try {
    for (const [, n, env] of sides) started.push(await planes(n, env));
    const rounds: WrkResult[][] = sides.map(() => []);
    const used: CpuUsed[][] = sides.map(() => []);
    for (const servers of started) await load(servers, headers, 1); // warm-up
    for (let i = 0; i < ROUNDS; i++) {
      const order = [...sides.keys()];
      for (const k of i % 2 ? order.reverse() : order) {
        // The side before may still be working off its requests in flight: as interleavedAll does,
        // each side's round starts once the machine is quiet again, so it is measured alone.
        await quietMachine();
        const cpu = cpuProbe(started[k]!, pg.dataDir);
        const round = await load(started[k]!, headers, SECONDS);
        rounds[k]!.push(round);
        used[k]!.push(await cpu.stop(round.cpu_ms ?? 0));
      }
    }
    for (const [k, [name, n, env]] of sides.entries()) {
      reportSide(name, n, !!env.FRAMEWORK_HIVE_URL, rounds[k]!, sumUsed(used[k]!));
    }
    const rate = (k: number) => median(rounds[k]!.map((r) => r.rps));
    report("PostgreSQL: 2 processes vs 1 (runs/s, medians of the same rounds)", {
      ratio: `${fmt(rate(2) / rate(1))}x`,
    });
    report("1 process: PostgreSQL vs SQLite (runs/s)", { ratio: `${fmt(rate(1) / rate(0))}x` });
  } finally {
    for (const servers of started) for (const s of servers) await s.stop();
  }

  roundTrips(await pg.createDatabase(), pg.dataDir);
  if (Deno.env.get("HIVE_PG_BENCH_QUICK")) return;

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

/**
 * One statement's round trip through the bridge, one after another in this process (a one-row
 * `SELECT` of six columns by key, an `UPDATE` of one row): per statement, the wall time and the CPU
 * of the main thread, the process's other threads (the bridge's worker) and PostgreSQL.
 */
function roundTrips(url: string, pgData: string): void {
  const N = 5000;
  const db = openPostgres(url);
  try {
    db.exec(
      "CREATE TABLE t (id text PRIMARY KEY, n bigint, status text, created_at text, body text, cost double precision)",
    );
    const insert = db.prepare("INSERT INTO t VALUES (?, ?, ?, ?, ?, ?)");
    for (let i = 0; i < 100; i++) {
      insert.run(`r${i}`, i, "success", new Date().toISOString(), "x".repeat(100), 0.5);
    }
    const select = db.prepare("SELECT id, n, status, created_at, body, cost FROM t WHERE id = ?");
    const update = db.prepare("UPDATE t SET n = n + 1 WHERE id = ?");
    for (let i = 0; i < 500; i++) select.get(`r${i % 100}`); // warm-up
    const threads = () => [...threadCpu(Deno.pid), ...postgresPids(pgData).flatMap(threadCpu)];
    const kinds: [string, (i: number) => unknown][] = [
      ["SELECT one row", (i) => select.get(`r${i % 100}`)],
      ["UPDATE one row", (i) => update.run(`r${i % 100}`)],
    ];
    for (const [name, once] of kinds) {
      const t0 = threads();
      const at = performance.now();
      for (let i = 0; i < N; i++) once(i);
      const wall = performance.now() - at;
      const used = { main: 0, other: 0, postgres: 0 };
      for (const t of cpuBetween(t0, threads())) {
        used[t.pid !== Deno.pid ? "postgres" : t.tid === t.pid ? "main" : "other"] += t.ms;
      }
      const us = (ms: number) => fmt(ms / N * 1000, " µs");
      report(`one round trip, ${name}, in process`, {
        wall: us(wall),
        "main thread": us(used.main),
        "other threads": us(used.other),
        postgres: us(used.postgres),
      });
    }
  } finally {
    db.close();
  }
}

/** Prints one side's runs per second, where its CPU went, and how busy the cores were. */
function reportSide(
  name: string,
  n: number,
  onPg: boolean,
  rounds: WrkResult[],
  used: CpuUsed,
): void {
  const runs = rounds.reduce((a, r) => a + r.rps * SECONDS, 0);
  const perRun = (ms: number) => fmt(ms / runs, " ms");
  report(`POST /run, ${CONNECTIONS} conn., ${name}`, {
    "runs/s": fmt(median(rounds.map((r) => r.rps))),
    p50: fmt(median(rounds.map((r) => r.p50_ms)), " ms"),
    p99: fmt(median(rounds.map((r) => r.p99_ms)), " ms"),
    ...(rounds.some((r) => r.errors)
      ? { errors: String(rounds.reduce((a, r) => a + r.errors, 0)) }
      : {}),
  });
  report(`  CPU per run, ${name}`, {
    all: perRun(used.main + used.other + used.postgres + used.wrk),
    "plane main": perRun(used.main),
    "plane other threads": perRun(used.other),
    postgres: perRun(used.postgres),
    wrk: perRun(used.wrk),
  });
  report(`  cores busy (of ${navigator.hardwareConcurrency}), ${name}`, {
    ours: fmt((used.main + used.other + used.postgres + used.wrk) / used.wallMs),
    "whole machine": fmt(used.machineBusyMs / used.wallMs),
    ...(onPg
      ? {
        "waited calls/run": fmt(used.calls / runs),
        "main blocked/run": perRun(used.waitMs),
        "main thread busy": `${fmt((used.main + used.waitMs) / used.wallMs / n * 100)} %`,
      }
      : {}),
  });
}

/** The CPU of a side's rounds, added up. */
function sumUsed(each: CpuUsed[]): CpuUsed {
  const total: CpuUsed = {
    main: 0,
    other: 0,
    postgres: 0,
    wrk: 0,
    machineBusyMs: 0,
    wallMs: 0,
    calls: 0,
    waitMs: 0,
  };
  for (const u of each) for (const k of Object.keys(total) as (keyof CpuUsed)[]) total[k] += u[k];
  return total;
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
    cpu_ms: each.reduce((a, r) => a + (r.cpu_ms ?? 0), 0),
  };
}

/** What the processes of a load used between {@link cpuProbe} and its `stop`, in milliseconds. */
interface CpuUsed {
  /** The control planes' main threads. */
  main: number;
  /** Their other threads (the PostgreSQL bridge's worker, V8's helpers, the HTTP runtime). */
  other: number;
  /** Every process of the PostgreSQL server. */
  postgres: number;
  wrk: number;
  /** Every core's busy time, all processes of the machine. */
  machineBusyMs: number;
  wallMs: number;
  /** Round trips the planes waited for, and the time their main threads waited in them. */
  calls: number;
  waitMs: number;
}

/** Starts measuring the CPU of the servers and the PostgreSQL cluster; `stop` adds wrk's. */
function cpuProbe(servers: ServerProcess[], pgData: string) {
  const threads = () => [
    ...servers.flatMap((s) => threadCpu(s.pid)),
    ...postgresPids(pgData).flatMap(threadCpu),
  ];
  const bridge = () =>
    Promise.all(
      servers.map(async (s) =>
        (await (await fetch(`http://127.0.0.1:${s.port}/__bench/pg`)).json()) as BridgeCounts
      ),
    );
  const sum = (b: BridgeCounts[], k: "calls" | "waitMs") => b.reduce((a, x) => a + x[k], 0);
  const start = (async () => ({
    bridge: await bridge(),
    threads: threads(),
    machine: machineCpu(),
    at: performance.now(),
  }))();
  return {
    async stop(wrkMs: number): Promise<CpuUsed> {
      const t0 = await start;
      const t1 = threads();
      const machine = machineCpu();
      const wallMs = performance.now() - t0.at;
      const b1 = await bridge();
      const planes = new Set(servers.map((s) => s.pid));
      const used = { main: 0, other: 0, postgres: 0 };
      for (const t of cpuBetween(t0.threads, t1)) {
        const k = !planes.has(t.pid) ? "postgres" : t.tid === t.pid ? "main" : "other";
        used[k] += t.ms;
      }
      return {
        ...used,
        wrk: wrkMs,
        machineBusyMs: machine.busyMs - t0.machine.busyMs,
        wallMs,
        calls: sum(b1, "calls") - sum(t0.bridge, "calls"),
        waitMs: sum(b1, "waitMs") - sum(t0.bridge, "waitMs"),
      };
    },
  };
}
