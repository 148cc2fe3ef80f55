import assert from "node:assert/strict";
import { cachedSpecVersion, checkHarnessCached } from "../../lib/harness_spec/cache.ts";
import { specVersion } from "../../lib/harness_spec/version.ts";

const spec = (reply: string) =>
  `id: hi\nmodel: { provider: scripted, replies: [{ text: ${reply} }] }\n`;

Deno.test("cachedSpecVersion() is the snapshot's spec version, hashed again only for a new snapshot", async () => {
  const dir = await Deno.makeTempDir();
  try {
    await Deno.writeTextFile(`${dir}/harness.yaml`, spec("one"));
    const first = (await checkHarnessCached(dir)).parsed;
    assert.equal(cachedSpecVersion(first), specVersion(first.spec));
    // The unchanged file gives the same snapshot, and so the same version.
    const again = (await checkHarnessCached(dir)).parsed;
    assert.equal(again, first);
    assert.equal(cachedSpecVersion(again), cachedSpecVersion(first));

    // Every write of harness.yaml is a rename: a new snapshot, whose version is its own.
    await Deno.writeTextFile(`${dir}/next.yaml`, spec("two"));
    await Deno.rename(`${dir}/next.yaml`, `${dir}/harness.yaml`);
    const second = (await checkHarnessCached(dir)).parsed;
    assert.notEqual(second, first);
    assert.equal(cachedSpecVersion(second), specVersion(second.spec));
    assert.notEqual(cachedSpecVersion(second), cachedSpecVersion(first));

    // A spec with errors has no version.
    await Deno.writeTextFile(`${dir}/next.yaml`, "id: hi\nmodel: { provider: scriptd }\n");
    await Deno.rename(`${dir}/next.yaml`, `${dir}/harness.yaml`);
    const broken = (await checkHarnessCached(dir)).parsed;
    assert.equal(broken.spec, undefined);
    assert.equal(cachedSpecVersion(broken), null);
  } finally {
    await Deno.remove(dir, { recursive: true });
  }
});
