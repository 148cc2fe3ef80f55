/**
 * `framework hive migrate`, run as a subprocess against a throwaway PostgreSQL cluster: a home with
 * runs, a thread, an approval, an eval and a proposal is copied whole — another home (another host,
 * no journal files of its own) then lists the same runs, threads, approvals and proposals, `stats`
 * gives the SQLite figures, and every run's verbatim export from PostgreSQL verifies and is the
 * file's bytes; a second migration copies nothing twice. A tampered journal is named and nothing is
 * written, or with `--skip-broken` the rest is copied and the command still exits 2; a target
 * holding another hive's rows is refused unless `--merge`.
 *
 * @module
 */

import assert from "node:assert/strict";
import { join } from "node:path";
import { stringify } from "yaml";
import { closeHives, openHive } from "../../lib/hive/open.ts";
import { insertProposal, type Proposal } from "../../lib/hive/proposals.ts";
import { verifyJournal } from "../../lib/journal/verify.ts";
import { approvalHarness } from "../helpers/approval_harness.ts";
import { runCli, spawnCli } from "../helpers/cli.ts";
import { type Json, jsonError, jsonOk } from "../helpers/cli_assert.ts";
import { scripted, writeHarness } from "../helpers/harness.ts";
import { startTestCluster } from "../helpers/postgres.ts";
import { tempDir } from "../helpers/temp.ts";

function proposal(id: string): Proposal {
  const now = new Date().toISOString();
  return {
    id,
    harness_id: "moved",
    status: "queued",
    trigger: "cli",
    created_at: now,
    updated_at: now,
    rationale: "fewer turns",
    objective: null,
    evidence: {
      run_ids: [],
      failure_signatures: [],
      runs: { total: 0, by_status: {}, avg_cost_usd: null, avg_turns: null },
    },
    yaml_changes: [{ path: "limits.max_turns", op: "set", value: 3, status: "pending" }],
    code_changes: [],
    spec_version: "x",
    evolver: { provider: "test", model: "test", cost_usd: 0 },
    decided_at: null,
    reason: null,
  } as unknown as Proposal;
}

/**
 * What the local face shows of a harness: runs, stats, threads (and each one's turns), approvals,
 * proposals, versions.
 */
async function views(dir: string, home: string, hive?: string): Promise<Record<string, Json>> {
  const flag = hive ? ["--hive", hive] : [];
  const cli = async (args: string[]) =>
    jsonOk(await runCli([...args, ...flag, "--json"], { home }));
  const threads = await cli(["threads", dir]);
  return {
    runs: await cli(["runs", dir]),
    stats: await cli(["stats", dir]),
    threads,
    turns: await Promise.all(
      threads.threads.map((t: Json) => cli(["threads", dir, "show", t.thread_id])),
    ),
    approvals: await cli(["approvals", dir]),
    proposals: await cli(["proposals", "list", dir]),
    versions: await cli(["versions", dir]),
  };
}

Deno.test("framework hive migrate copies a SQLite hive and its journals into PostgreSQL", async (t) => {
  await using pg = await startTestCluster();
  const url = await pg.createDatabase();
  await using home = await tempDir("fw-mig-home-");
  await using host2 = await tempDir("fw-mig-host2-");
  await using root = await tempDir();
  const dir = await approvalHarness(root.path, "moved");
  await Deno.mkdir(join(dir, "evals"), { recursive: true });
  await Deno.writeTextFile(
    join(dir, "evals", "smoke.yaml"),
    stringify({ cases: [{ id: "greet", input: "hello", expect: [{ builtin: "non_empty" }] }] }),
  );
  const cli = (args: string[]) => runCli(args, { home: home.path });

  await t.step("a SQLite home: runs, a thread, an approval, an eval, a proposal", async () => {
    jsonOk(await cli(["trust", dir, "--json"]));
    jsonOk(await cli(["set", dir, "limits.max_turns", "5", "--json"]));
    for (const input of ["hello", "again"]) {
      jsonOk(await cli(["run", dir, "--input", input, "--json"]));
    }
    const first = jsonOk(await cli(["run", dir, "--thread", "new", "--input", "hi", "--json"]));
    jsonOk(await cli(["run", dir, "--thread", first.thread_id, "--input", "more", "--json"]));
    await using run = spawnCli(["run", dir, "--input", "write it", "--json"], { home: home.path });
    const [, id, hash] = await run.until(
      /framework approvals \S+ approve (apr_\w+) --hash ([0-9a-f]{64})/,
    );
    jsonOk(await cli(["approvals", dir, "approve", id!, "--hash", hash!, "--json"]));
    assert.equal((await run.status()).code, 0, run.seen());
    jsonOk(await cli(["eval", dir, "--set", "smoke", "--json"]));
    insertProposal(openHive(join(home.path, "hive.db")), proposal("prop_moved"), dir);
    closeHives();
  });

  const before = await views(dir, home.path);
  const runIds = before.runs.runs.map((r: Json) => r.run_id as string);

  await t.step("migrated: every row and journal line copied, once", async () => {
    const first = jsonOk(await cli(["hive", "migrate", "--to", url, "--json"]));
    assert.equal(first.tables.runs.copied, runIds.length);
    assert.equal(first.tables.threads.copied, 1);
    // A thread's turns are its runs' rows: copied with them.
    assert.deepEqual(
      before.turns[0].runs.map((r: Json) => [r.input, r.output !== null]),
      [["hi", true], ["more", true]],
    );
    assert.equal(first.tables.approvals.copied, 1);
    assert.equal(first.tables.proposals.copied, 1);
    assert.equal(first.tables.evals.copied, 1);
    assert.ok(first.tables.spec_versions.copied >= 1);
    assert.equal(first.journals.verified, runIds.length);
    assert.ok(first.journals.lines_copied > runIds.length * 3);
    assert.deepEqual(first.broken, []);
    assert.doesNotMatch(JSON.stringify(first), /password/);

    const again = jsonOk(await cli(["hive", "migrate", "--to", url, "--json"]));
    for (const [table, c] of Object.entries(again.tables) as [string, Json][]) {
      assert.equal(c.copied, 0, `${table} copied again`);
      assert.equal(c.present, first.tables[table].copied + first.tables[table].present, table);
    }
    assert.equal(again.journals.lines_copied, 0);
    assert.equal(again.journals.lines_present, first.journals.lines_copied);
  });

  await t.step("another host on the PostgreSQL hive sees what the SQLite hive held", async () => {
    const after = await views(dir, host2.path, url);
    assert.deepEqual(after, before);
  });

  await t.step("every run's export from PostgreSQL verifies and is its file's bytes", async () => {
    const db = openHive(join(home.path, "hive.db"));
    for (const runId of runIds) {
      const row = db.prepare("SELECT trace_path, events FROM runs WHERE run_id = ?").get(runId) as {
        trace_path: string;
        events: number;
      };
      const exported = await runCli(["trace", runId, "--export", "-", "--hive", url], {
        home: host2.path,
      });
      assert.equal(exported.code, 0, exported.stderr);
      const integrity = verifyJournal(exported.stdout);
      assert.equal(integrity.ok, true, runId);
      assert.equal(integrity.checked, row.events);
      assert.equal(exported.stdout, await Deno.readTextFile(row.trace_path));
    }
    closeHives();
  });
});

Deno.test("framework hive migrate names a tampered journal and refuses another hive's database", async (t) => {
  await using pg = await startTestCluster();
  const url = await pg.createDatabase();
  await using home = await tempDir("fw-mig-tamper-");
  await using home2 = await tempDir("fw-mig-other-");
  await using root = await tempDir();
  const dir = await writeHarness(root.path, "plain", { model: scripted([{ text: "Hi" }]) });
  const cli = (args: string[], h = home.path) => runCli(args, { home: h });
  jsonOk(await cli(["trust", dir, "--json"]));
  const good = jsonOk(await cli(["run", dir, "--input", "one", "--json"])).run_id as string;
  const bad = jsonOk(await cli(["run", dir, "--input", "two", "--json"])).run_id as string;
  const db = openHive(join(home.path, "hive.db"));
  const path = (db.prepare("SELECT trace_path FROM runs WHERE run_id = ?").get(bad) as {
    trace_path: string;
  }).trace_path;
  closeHives();
  const text = await Deno.readTextFile(path);
  await Deno.writeTextFile(path, text.replace('"two"', '"TWO"'));

  await t.step("a journal that does not verify is named, and nothing is written", async () => {
    const refused = jsonError(await cli(["hive", "migrate", "--to", url, "--json"]), "conflict", 2);
    assert.match(refused.message, new RegExp(bad));
    assert.doesNotMatch(refused.message, new RegExp(good));
    assert.deepEqual(refused.details.broken.map((b: Json) => [b.run_id, b.problem]), [
      [bad, "chain"],
    ]);
    const human = await cli(["hive", "migrate", "--to", url]);
    assert.equal(human.code, 2);
    assert.match(human.stderr, new RegExp(`${bad} \\(${path}: broken at line \\d+\\)`));
    const listed = jsonOk(await cli(["runs", dir, "--hive", url, "--json"], home2.path));
    assert.deepEqual(listed.runs, []);
  });

  await t.step("--skip-broken copies the rest, names it and exits 2", async () => {
    const partial = jsonOk(
      await cli(["hive", "migrate", "--to", url, "--skip-broken", "--json"]),
      2,
    );
    assert.deepEqual(partial.broken.map((b: Json) => b.run_id), [bad]);
    assert.equal(partial.tables.runs.copied, 2);
    assert.equal(partial.journals.verified, 1);
    const exported = await cli(["trace", good, "--export", "-", "--hive", url], home2.path);
    assert.equal(exported.code, 0, exported.stderr);
    assert.equal(verifyJournal(exported.stdout).ok, true);
  });

  await t.step("a database holding another hive's rows is refused unless --merge", async () => {
    const other = await writeHarness(root.path, "other", { model: scripted([{ text: "Yo" }]) });
    jsonOk(await cli(["trust", other, "--json"], home2.path));
    const theirs = jsonOk(await cli(["run", other, "--input", "x", "--json"], home2.path));
    const refused = jsonError(
      await cli(["hive", "migrate", "--to", url, "--json"], home2.path),
      "conflict",
      2,
    );
    assert.match(refused.message, /another hive's rows \(harnesses: 1, .*runs: 2/);
    assert.match(refused.message, /--merge/);
    const merged = jsonOk(
      await cli(["hive", "migrate", "--to", url, "--merge", "--json"], home2.path),
    );
    assert.equal(merged.tables.runs.copied, 1);
    const exported = await cli(["trace", theirs.run_id, "--export", "-", "--hive", url], home.path);
    assert.equal(verifyJournal(exported.stdout).ok, true);
  });
});
