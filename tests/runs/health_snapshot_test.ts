/**
 * The `/health` snapshot: answered synchronously (text, not a promise) while it stands, rebuilt when
 * this process writes the spec.
 *
 * @module
 */

import assert from "node:assert/strict";
import { setField } from "../../lib/construct/set_field.ts";
import { healthSnapshot } from "../../lib/runs/health.ts";
import { scripted, writeHarness } from "../helpers/harness.ts";
import { tempDir, tempHome } from "../helpers/temp.ts";

Deno.test("healthSnapshot answers text while current and a rebuilt body after a spec write", async () => {
  await using _home = await tempHome();
  await using root = await tempDir();
  const dir = await Deno.realPath(
    await writeHarness(root.path, "probe", { model: scripted([{ text: "ok" }]) }),
  );
  const health = healthSnapshot(dir);
  try {
    const first = await health.json();
    assert.equal(JSON.parse(first).data.id, "probe");
    const again = health.json();
    assert.equal(typeof again, "string", "a standing snapshot is answered without a promise");
    assert.equal(again, first);
    await setField(dir, "name", "Probe two", { actor: "cli", policy: "local" });
    const rebuilt = await health.json();
    assert.equal(JSON.parse(rebuilt).data.name, "Probe two");
    assert.notEqual(JSON.parse(rebuilt).data.spec_version, JSON.parse(first).data.spec_version);
  } finally {
    health.close();
  }
});
