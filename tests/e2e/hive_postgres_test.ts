/**
 * Two control-plane processes sharing one hive on a throwaway PostgreSQL cluster (the harness folder
 * at the same path for both, as docs/deploy.md asks of hosts): a run made through A is served by B
 * (trace, stats, lineage, a verbatim export that verifies, even with A's journal file gone); a
 * proposal applied through both at once is applied once (one 200, one 409); an approval decided
 * through both at once is decided once; a thread busy on A is busy on B; a copy of the folder on
 * "another host" reports `spec_drift` until it is updated; a run in progress on A is followed live
 * through B from the hive's copy of its journal; PostgreSQL stopped under load loses no
 * acknowledged run and both processes recover when it returns; an unreachable database at start is
 * refused, named without its password.
 *
 * @module
 */

import assert from "node:assert/strict";
import { join } from "node:path";
import { closeHives, openHive, setHiveUrl } from "../../lib/hive/open.ts";
import { getRunAnyHarness } from "../../lib/hive/runs.ts";
import { journalLineCount, journalLinesBytes } from "../../lib/hive/journal_lines.ts";
import { insertProposal, type Proposal } from "../../lib/hive/proposals.ts";
import { runLineage } from "../../lib/runs/forks.ts";
import { parseJournal, verifyJournal } from "../../lib/journal/verify.ts";
import { approvalSpec } from "../helpers/approval_harness.ts";
import { runCli } from "../helpers/cli.ts";
import { memberToken, startControlPlane } from "../helpers/control_plane.ts";
import { scripted, writeHarness } from "../helpers/harness.ts";
import { startTestCluster } from "../helpers/postgres.ts";
import { SseReader } from "../helpers/sse_reader.ts";
import { tempDir } from "../helpers/temp.ts";

// deno-lint-ignore no-explicit-any
type Json = any;

async function call(url: string, method: string, path: string, token: string, body?: unknown) {
  const res = await fetch(`${url}${path}`, {
    method,
    headers: {
      authorization: `Bearer ${token}`,
      ...(body === undefined ? {} : { "content-type": "application/json" }),
    },
    ...(body === undefined ? {} : { body: JSON.stringify(body) }),
    // A request that never comes back fails the test instead of hanging it.
    signal: AbortSignal.timeout(120_000),
  });
  const text = await res.text();
  let json: Json = null;
  try {
    json = JSON.parse(text);
  } catch { /* not JSON */ }
  return { status: res.status, json, text, retryAfter: res.headers.get("retry-after") };
}

/** An answer of {@link call}. */
type Answer = Awaited<ReturnType<typeof call>>;

async function waitFor<T>(what: string, fn: () => Promise<T | undefined | false>): Promise<T> {
  const deadline = Date.now() + 30_000;
  for (;;) {
    const v = await fn();
    if (v !== undefined && v !== false) return v;
    if (Date.now() > deadline) assert.fail(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 50));
  }
}

function spec() {
  const base = approvalSpec();
  return {
    ...base,
    model: {
      ...base.model,
      scenarios: [
        ...(base.model.scenarios as unknown[]),
        { match: "^slow", replies: [{ text: "late", delay_ms: 2500 }] },
      ],
    },
  };
}

Deno.test("two control planes on one PostgreSQL hive", async (t) => {
  await using pg = await startTestCluster();
  const url = await pg.createDatabase();
  await using homeA = await tempDir("fw-pg-a-");
  await using homeB = await tempDir("fw-pg-b-");
  await using root = await tempDir();
  await using other = await tempDir();
  const dir = await writeHarness(root.path, "shared", spec(), {
    "tools.ts":
      `export async function tally() { await Deno.writeTextFile("workspace/tally.txt", "x\\n", { append: true }); return "counted"; }`,
    "workspace/.keep": "",
  });
  // "Another host": a copy of the folder, kept at its version.
  const copy = join(other.path, "shared");
  await new Deno.Command("cp", { args: ["-a", dir, copy] }).output();

  const alice = await memberToken(dir, homeA.path, "alice", ["*"]);
  const bob = await memberToken(dir, homeA.path, "bob", ["*"]);
  const copyKey = await memberToken(copy, homeA.path, "carol", ["*"]);
  const env = { FRAMEWORK_HIVE_URL: url, FRAMEWORK_AUTHORIZED_KEYS: "" };
  const args = ["--max-concurrent-runs", "4", "--max-queued-runs", "16"];
  await using a = await startControlPlane(dir, { home: homeA.path, env, args });
  await using b = await startControlPlane(dir, { home: homeB.path, env, args });
  await using c = await startControlPlane(copy, { home: homeB.path, env });
  setHiveUrl(url);
  // A request that could not be sent is an answer of status 0 (and fails the checks on it).
  const post = (plane: { url: string }, input: string): Promise<Answer> =>
    call(plane.url, "POST", "/run", alice.token, { input }).catch((err) => ({
      status: 0,
      json: null,
      text: String(err),
      retryAfter: null,
    }));
  try {
    await t.step("a run made through A is served by B: trace, stats, lineage, export", async () => {
      const made = await call(a.url, "POST", "/run", alice.token, { input: "hello" });
      assert.equal(made.status, 200, made.text);
      const runId = made.json.data.run_id as string;
      assert.equal(made.json.data.status, "success");
      const row = getRunAnyHarness(openHive(), runId)!;
      // B must read the hive's copy: A's file is gone ("another host").
      await Deno.remove(row.trace_path);
      const trace = await call(b.url, "GET", `/trace/${runId}`, bob.token);
      assert.equal(trace.status, 200, trace.text);
      assert.equal(trace.json.data.integrity.ok, true);
      assert.equal(trace.json.data.events.length, row.events);
      const stats = await call(b.url, "GET", "/stats", bob.token);
      assert.equal(stats.json.data.runs.by_status.success, 1);
      assert.deepEqual(runLineage(openHive(), runId), { parent: null, children: [] });
      const exported = await runCli(["trace", runId, "--export", "-", "--hive", url], {
        home: homeB.path,
      });
      assert.equal(exported.code, 0, exported.stderr);
      const integrity = verifyJournal(new TextEncoder().encode(exported.stdout));
      assert.equal(integrity.ok, true);
      assert.equal(integrity.checked, row.events);
    });

    await t.step("one proposal applied through A and B at once: one 200, one 409", async () => {
      const now = new Date().toISOString();
      const p = {
        id: "prop_race",
        harness_id: "shared",
        status: "queued",
        trigger: "cli",
        created_at: now,
        updated_at: now,
        rationale: "race",
        objective: null,
        evidence: {
          run_ids: [],
          failure_signatures: [],
          runs: { total: 0, by_status: {}, avg_cost_usd: null, avg_turns: null },
        },
        yaml_changes: [{ path: "limits.max_turns", op: "set", value: 7, status: "pending" }],
        code_changes: [],
        spec_version: "x",
        evolver: { provider: "test", model: "test", cost_usd: 0 },
        decided_at: null,
        reason: null,
      } as unknown as Proposal;
      insertProposal(openHive(), p, dir);
      const body = { approve_code: [], apply_yaml: true };
      const answers = await Promise.all([
        call(a.url, "POST", "/proposals/prop_race/apply", alice.token, body),
        call(b.url, "POST", "/proposals/prop_race/apply", bob.token, body),
      ]);
      assert.deepEqual(answers.map((x) => x.status).sort(), [200, 409], answers[0]!.text);
      const lost = answers.find((x) => x.status === 409)!;
      assert.equal(lost.json.error.kind, "conflict");
      const log = await Deno.readTextFile(join(dir, ".framework", "construction.log"));
      assert.equal(log.split("\n").filter((l) => l.includes("proposal:prop_race")).length, 1);
    });

    await t.step("the copy on another host reports spec_drift until it is updated", async () => {
      const mine = (await call(a.url, "GET", "/health", alice.token)).json.data;
      const drifted = await waitFor("spec_drift on the copy", async () => {
        const h = (await call(c.url, "GET", "/health", copyKey.token)).json.data;
        return h.spec_drift === true ? h : undefined;
      });
      assert.equal(drifted.newest_spec_version, mine.spec_version);
      assert.notEqual(drifted.spec_version, mine.spec_version);
      await Deno.copyFile(join(dir, "harness.yaml"), join(copy, "harness.yaml"));
      await waitFor("no drift once updated", async () => {
        const h = (await call(c.url, "GET", "/health", copyKey.token)).json.data;
        return h.spec_drift === false && h.spec_version === mine.spec_version;
      });
    });

    await t.step("one approval decided through A and B at once: one wins", async () => {
      const res = await fetch(`${a.url}/run?stream=true`, {
        method: "POST",
        headers: { authorization: `Bearer ${alice.token}`, "content-type": "application/json" },
        body: JSON.stringify({ input: "write it" }),
      });
      const sse = new SseReader(res);
      try {
        const frames = await sse.until(
          (f) => f.event === "trace" && f.data.type === "approval_requested",
          "approval_requested",
        );
        const request = frames.at(-1)!.data.payload;
        const path = `/approvals/${request.approval_id}`;
        const answers = await Promise.all([
          call(a.url, "POST", path, bob.token, {
            decision: "approve",
            arguments_hash: request.arguments_hash,
          }),
          call(b.url, "POST", path, bob.token, {
            decision: "deny",
            arguments_hash: request.arguments_hash,
            reason: "no",
          }),
        ]);
        assert.deepEqual(answers.map((x) => x.status).sort(), [200, 409], answers[1]!.text);
        await sse.rest();
      } finally {
        await sse.close();
      }
    });

    await t.step("a thread busy on A is busy on B", async () => {
      const made = await call(a.url, "POST", "/threads", alice.token, {});
      assert.equal(made.status, 201, made.text);
      const path = `/threads/${made.json.data.thread_id}`;
      const res = await fetch(`${a.url}${path}/run?stream=true`, {
        method: "POST",
        headers: { authorization: `Bearer ${alice.token}`, "content-type": "application/json" },
        body: JSON.stringify({ input: "slow: take your time" }),
      });
      const sse = new SseReader(res);
      try {
        const [accepted] = await sse.until(() => true, "run_accepted");
        await sse.until((f) => f.event === "trace" && f.data.type === "model_call", "model call");
        const busy = await call(b.url, "POST", `${path}/run`, alice.token, { input: "again" });
        assert.equal(busy.status, 409, busy.text);
        assert.equal(busy.json.error.details.run_id, accepted!.data.run_id);
        await sse.rest();
      } finally {
        await sse.close();
      }
    });

    await t.step(
      "messages racing from A and B to one thread: one turn at a time, each counted once",
      async () => {
        const made = await call(a.url, "POST", "/threads", alice.token, {});
        assert.equal(made.status, 201, made.text);
        const id = made.json.data.thread_id;
        let ran = 0;
        for (let i = 0; i < 12; i++) {
          // Once each plane has run a turn of it, each starts its next without reading the thread
          // first (one statement), racing the other's start.
          const answers = await Promise.all(
            [a, b, a, b].map((plane, k) =>
              call(plane.url, "POST", `/threads/${id}/run`, alice.token, { input: `m${i}.${k}` })
            ),
          );
          for (const x of answers) assert.ok(x.status === 200 || x.status === 409, x.text);
          ran += answers.filter((x) => x.status === 200).length;
        }
        assert.ok(ran >= 12, `${ran} turns ran`);
        const db = openHive();
        const turns = db.prepare(
          `SELECT thread_seq, started_at, ended_at FROM runs WHERE thread_id = ?
           ORDER BY thread_seq`,
        ).all(id) as { thread_seq: number; started_at: string; ended_at: string }[];
        assert.deepEqual(
          turns.map((x) => Number(x.thread_seq)),
          [...Array(ran)].map((_, i) => i + 1),
        );
        // Never two at once: each turn started after the one before it ended.
        for (let i = 1; i < turns.length; i++) {
          assert.ok(turns[i]!.started_at >= turns[i - 1]!.ended_at, JSON.stringify(turns));
        }
        const thread = await call(b.url, "GET", `/threads/${id}`, alice.token);
        assert.equal(thread.json.data.turns, ran);
        assert.equal(thread.json.data.live_run_id, null);
      },
    );

    await t.step("a run in progress on A is followed live through B, from the hive", async () => {
      const res = await fetch(`${a.url}/run?stream=true`, {
        method: "POST",
        headers: { authorization: `Bearer ${alice.token}`, "content-type": "application/json" },
        body: JSON.stringify({ input: "slow: follow me" }),
      });
      const sse = new SseReader(res);
      try {
        const [accepted] = await sse.until(() => true, "run_accepted");
        const runId = accepted!.data.run_id as string;
        await sse.until((f) => f.event === "trace" && f.data.type === "model_call", "model call");
        const row = getRunAnyHarness(openHive(), runId)!;
        assert.equal(row.status, "running");
        // B must follow the hive's copy: A's file is on "another host".
        await Deno.remove(row.trace_path);
        const follow = await fetch(`${b.url}/runs/${runId}/events`, {
          headers: { authorization: `Bearer ${bob.token}` },
        });
        assert.equal(follow.status, 200);
        const frames = await new SseReader(follow).rest();
        const traced = frames.filter((f) => f.event === "trace").map((f) => f.data);
        const result = frames.find((f) => f.event === "run_result")!.data;
        assert.equal(result.status, "success");
        const done = getRunAnyHarness(openHive(), runId)!;
        // Every event, in order, as the hive's copy of the journal has them.
        const copy = parseJournal(journalLinesBytes(openHive(), runId)!);
        assert.equal(copy.length, done.events);
        assert.deepEqual(
          traced.map((e) => [e.seq, e.type, e.hash]),
          copy.map((e) => [e.seq, e.type, e.hash]),
        );
        await sse.rest();
      } finally {
        await sse.close();
      }
    });

    await t.step(
      "PostgreSQL stopped under load: no acknowledged run lost, both recover",
      async () => {
        closeHives();
        // Two streams of runs on each process, each run posted once the last one answered; a run
        // acknowledged is a 200 with its result.
        const answered: Answer[] = [];
        let running = true;
        const stream = async (plane: { url: string }, tag: string) => {
          for (let i = 0; running; i++) {
            const x = await post(plane, `load ${tag} ${i}`);
            answered.push(x);
            if (x.status !== 200) await new Promise((r) => setTimeout(r, 50));
          }
        };
        const streams = [a, b, a, b].map((plane, i) => stream(plane, `s${i}`));
        let burst: Promise<Answer>[] = [];
        let before: Answer[] = [];
        let during: Answer[] = [];
        try {
          await waitFor("runs acknowledged before the stop", () =>
            Promise.resolve(
              answered.filter((x) => x.json?.data?.status === "success").length >= 6,
            ));
          before = answered.filter((x) => x.status === 200);
          // A burst in flight as it stops, on top of the streams.
          burst = Array.from({ length: 16 }, (_, i) => post(i % 2 ? a : b, `burst ${i}`));
          await pg.stop();
          // Both processes keep answering while it is down (a process waiting on its lost database
          // answers nothing): the streams go on, each answer a refusal or a run that lost the hive.
          const stoppedAt = answered.length;
          await waitFor(
            "answers while the database is down",
            () => Promise.resolve(answered.length >= stoppedAt + 24),
          );
          // Runs posted while it is down end `error` `hive_unavailable` or are refused 503 with
          // Retry-After: each comes back, none hangs.
          during = await Promise.all([post(a, "during a"), post(b, "during b")]);
          for (const x of during) {
            if (x.status === 200) {
              assert.equal(x.json.data.error?.reason, "hive_unavailable", x.text);
            } else {
              assert.equal(x.status, 503, x.text);
              assert.equal(x.json.error.details.reason, "hive_unavailable", x.text);
              assert.ok(Number(x.retryAfter) > 0, x.text);
            }
          }
        } finally {
          await pg.start();
          running = false;
          await Promise.all(streams);
        }
        const all = [...answered, ...during, ...await Promise.all(burst)];
        for (const x of all.filter((x) => x.status !== 200)) {
          assert.equal(x.status, 503, x.text);
          assert.equal(x.json.error.details.reason, "hive_unavailable", x.text);
        }
        const acknowledged = all.filter((x) => x.status === 200);
        for (const x of acknowledged.filter((x) => x.json.data.status !== "success")) {
          assert.equal(x.json.data.error?.reason, "hive_unavailable", x.text);
        }
        assert.ok(acknowledged.length > before.length, "the streams went on through the outage");
        // Every run acknowledged is in the hive as it was reported (those told `hive_unavailable` once
        // the database is back), with its whole journal, which verifies.
        const db = openHive();
        for (const x of acknowledged) {
          const id = x.json.data.run_id as string;
          const row = await waitFor(`run ${id} recorded`, () => {
            const r = getRunAnyHarness(db, id);
            return Promise.resolve(r && r.status !== "running" ? r : undefined);
          });
          assert.equal(row.status, x.json.data.status, id);
          const journal = await waitFor(`the journal of ${id} copied`, () => {
            const bytes = journalLinesBytes(db, id);
            return Promise.resolve(journalLineCount(db, id) === row.events ? bytes : undefined);
          });
          const integrity = verifyJournal(journal);
          assert.equal(integrity.ok, true, id);
          assert.equal(integrity.checked, row.events, id);
        }
        // Both processes serve again, without a restart.
        for (const plane of [a, b]) {
          const again = await waitFor("a run after the database is back", async () => {
            const r = await post(plane, "again");
            return r.status === 200 && r.json.data.status === "success" ? r : undefined;
          });
          assert.ok(getRunAnyHarness(db, again.json.data.run_id));
        }
      },
    );
  } finally {
    closeHives();
    setHiveUrl(undefined);
  }
});

Deno.test("a PostgreSQL hive out of reach at start: the control plane refuses, naming it without its password", async () => {
  await using home = await tempDir();
  await using root = await tempDir();
  const dir = await writeHarness(root.path, "lonely", { model: scripted([{ text: "hi" }]) });
  const port = (() => {
    const l = Deno.listen({ hostname: "127.0.0.1", port: 0 });
    const p = (l.addr as Deno.NetAddr).port;
    l.close();
    return p;
  })();
  const url = `postgres://app:s3cret@127.0.0.1:${port}/hive`;
  const out = await runCli(["control-plane", dir, "--port", "0", "--approve", "--hive", url], {
    home: home.path,
  });
  assert.notEqual(out.code, 0);
  assert.match(out.stderr, new RegExp(`postgres://app@127\\.0\\.0\\.1:${port}/hive`));
  assert.ok(!out.stderr.includes("s3cret"), out.stderr);
  assert.match(out.stderr, /unavailable/);
});
