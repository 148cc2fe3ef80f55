import assert from "node:assert/strict";
import { DatabaseSync } from "node:sqlite";
import { closeHives, openHive } from "../../lib/hive/open.ts";
import { MIGRATIONS } from "../../lib/hive/migrations.ts";
import { migrate } from "../../lib/sqlite/database.ts";
import { tempDir } from "../helpers/temp.ts";

Deno.test("migration 3 binds rows written before it to their harness folder", async () => {
  await using tmp = await tempDir();
  const path = `${tmp.path}/hive.db`;
  const old = new DatabaseSync(path);
  migrate(old, MIGRATIONS.slice(0, 2));
  old.exec(`
    INSERT INTO harnesses (id, root_path, name, created_at, updated_at)
      VALUES ('bot', '/now/bot', 'Bot', 't', 't');
    INSERT INTO runs (run_id, harness_id, status, started_at, spec_version, trace_path)
      VALUES ('run_a', 'bot', 'success', 't', 'v', '/was/bot/.framework/traces/run_a.jsonl'),
             ('run_b', 'bot', 'success', 't', 'v', '/var/traces/run_b.jsonl');
    INSERT INTO proposals (id, harness_id, status, trigger, created_at, updated_at, record)
      VALUES ('prop_a', 'bot', 'applied', 'cli', 't', 't', '{}'),
             ('prop_b', 'bot', 'queued', 'cli', 't', 't', '{}');
  `);
  old.close();
  try {
    const db = openHive(path);
    const dirs = db.prepare("SELECT run_id, harness_dir FROM runs ORDER BY run_id").all();
    assert.deepEqual(dirs.map((r) => ({ ...r })), [
      { run_id: "run_a", harness_dir: "/was/bot" },
      { run_id: "run_b", harness_dir: "/now/bot" },
    ]);
    const proposals = db.prepare("SELECT id, harness_dir, applied FROM proposals ORDER BY id")
      .all();
    assert.deepEqual(proposals.map((r) => ({ ...r })), [
      { id: "prop_a", harness_dir: "/now/bot", applied: 1 },
      { id: "prop_b", harness_dir: "/now/bot", applied: 0 },
    ]);
  } finally {
    closeHives();
  }
});
