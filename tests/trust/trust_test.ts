import assert from "node:assert/strict";
import { FrameworkError } from "../../lib/errors.ts";
import { trustStorePath } from "../../lib/paths.ts";
import { ensureTrusted } from "../../lib/trust/trust_gate.ts";
import { listTrusted, revokeTrust, trustedEntryFor, trustFolder } from "../../lib/trust/store.ts";
import { tempDir, tempHome } from "../helpers/temp.ts";

Deno.test("trustFolder() stores real paths and covers subfolders", async () => {
  await using _home = await tempHome();
  await using tmp = await tempDir();
  await Deno.mkdir(`${tmp.path}/tree/child`, { recursive: true });
  await Deno.symlink(`${tmp.path}/tree`, `${tmp.path}/link`);
  assert.deepEqual(await trustFolder(`${tmp.path}/link`), {
    path: `${tmp.path}/tree`,
    added: true,
  });
  assert.deepEqual(await trustFolder(`${tmp.path}/tree`), {
    path: `${tmp.path}/tree`,
    added: false,
  });
  assert.equal((await listTrusted()).length, 1);
  assert.ok(await trustedEntryFor(`${tmp.path}/tree/child`));
  await Deno.mkdir(`${tmp.path}/tree-sibling`);
  assert.equal(
    await trustedEntryFor(`${tmp.path}/tree-sibling`),
    undefined,
    "a name prefix is not containment",
  );
  await revokeTrust(`${tmp.path}/tree`);
  assert.equal(await trustedEntryFor(`${tmp.path}/tree/child`), undefined);
  await assert.rejects(
    revokeTrust(`${tmp.path}/tree`),
    (e) => e instanceof FrameworkError && e.kind === "not_found",
  );
});

Deno.test("trust store: a corrupt file is reported and never replaced", async () => {
  await using _home = await tempHome();
  await using tmp = await tempDir();
  await Deno.writeTextFile(trustStorePath(), "{not json");
  await assert.rejects(
    listTrusted(),
    (e) => e instanceof FrameworkError && /corrupt/.test(e.message),
  );
  await assert.rejects(
    trustFolder(tmp.path),
    (e) => e instanceof FrameworkError && /corrupt/.test(e.message),
  );
  assert.equal(await Deno.readTextFile(trustStorePath()), "{not json");
});

Deno.test("ensureTrusted() gates untrusted folders", async (t) => {
  await using _home = await tempHome();
  await using tmp = await tempDir();
  const dir = tmp.path;
  await t.step("no terminal: refused with kind untrusted naming both remedies", async () => {
    await assert.rejects(ensureTrusted(dir, { interactive: false }), (e) => {
      assert.ok(e instanceof FrameworkError);
      assert.equal(e.kind, "untrusted");
      assert.match(e.message, /--approve/);
      assert.match(e.message, /framework trust/);
      // Trust is per home: the message names the one it looked in, and how to trust for it.
      assert.ok(e.message.includes(trustStorePath()), e.message);
      assert.ok(e.message.includes(`FRAMEWORK_HOME=${_home.path} framework trust ${dir}`));
      assert.equal(e.details.home, _home.path);
      return true;
    });
    assert.equal(await trustedEntryFor(dir), undefined);
  });
  await t.step("terminal, answer no", async () => {
    let asked = "";
    await assert.rejects(
      ensureTrusted(dir, { interactive: true, ask: (q) => Promise.resolve((asked = q, "n")) }),
      (e) => e instanceof FrameworkError && e.kind === "untrusted",
    );
    assert.match(asked, /\[y\/N\]/);
    assert.equal(await trustedEntryFor(dir), undefined);
  });
  await t.step("terminal, answer yes", async () => {
    assert.equal(
      await ensureTrusted(dir, { interactive: true, ask: () => Promise.resolve("y") }),
      "confirmed",
    );
    assert.equal(await ensureTrusted(dir, { interactive: false }), "trusted");
  });
  await t.step("--approve trusts and goes on", async () => {
    await using other = await tempDir();
    assert.equal(
      await ensureTrusted(other.path, { approve: true, interactive: false }),
      "approved",
    );
    assert.ok(await trustedEntryFor(other.path));
  });
});
