/**
 * An invalid harness can be repaired through the construction API: an edit is allowed when it adds
 * no problem (the others may stay), a key the schema does not know can be removed, and the whole text
 * can be replaced (validated before it is written; frozen fields kept by value).
 *
 * @module
 */

import assert from "node:assert/strict";
import { FrameworkError } from "../../lib/errors.ts";
import { removeItem } from "../../lib/construct/remove_item.ts";
import { frozenRootsChangedByText, replaceSpecText } from "../../lib/construct/replace_spec.ts";
import { setField } from "../../lib/construct/set_field.ts";
import { validateHarness } from "../../lib/validate/validate.ts";
import { tempDir, tempHome } from "../helpers/temp.ts";
import { startWorkbenchProcess, workbenchCall } from "../helpers/workbench.ts";

const BROKEN = `# My bot, with two mistakes.
id: fixme
model:
  provider: scripted
  replies:
    - text: hi
limits:
  max_turns: "ten"   # a string where a number belongs
  max_turnz: 3       # a typo
`;

const CLI = { actor: "cli", policy: "local" } as const;
const SPEC_TAB = { actor: "workbench", policy: "proposal" } as const;

async function brokenHarness(root: string): Promise<string> {
  const dir = `${root}/fixme`;
  await Deno.mkdir(dir);
  await Deno.writeTextFile(`${dir}/harness.yaml`, BROKEN);
  return dir;
}

const kind = (k: string, re?: RegExp) => (err: unknown) =>
  err instanceof FrameworkError && err.kind === k && (!re || re.test(err.message));

Deno.test("an invalid harness is repaired one edit at a time", async (t) => {
  await using _home = await tempHome();
  await using root = await tempDir();
  const dir = await brokenHarness(root.path);
  const errors = async () =>
    (await validateHarness(dir)).issues.filter((i) => i.severity === "error").map((i) => i.path);
  assert.deepEqual((await errors()).sort(), ["limits.max_turns", "limits.max_turnz"]);

  await t.step("an edit of another field is allowed while the problems stay", async () => {
    const r = await setField(dir, "description", "A bot being fixed", CLI);
    assert.equal(r.changed, true);
    assert.equal(r.valid, false);
    assert.match(await Deno.readTextFile(`${dir}/harness.yaml`), /description: A bot being fixed/);
  });

  await t.step("an edit that adds a problem is still refused, and nothing changes", async () => {
    const before = await Deno.readTextFile(`${dir}/harness.yaml`);
    await assert.rejects(
      () => setField(dir, "limits.timeout_s", "soon", CLI),
      kind("bad_input", /limits\.timeout_s/),
    );
    assert.equal(await Deno.readTextFile(`${dir}/harness.yaml`), before);
  });

  await t.step("fixing a field is allowed", async () => {
    await setField(dir, "limits.max_turns", 10, CLI);
    assert.deepEqual(await errors(), ["limits.max_turnz"]);
  });

  await t.step("a key the schema does not know can be removed", async () => {
    const r = await removeItem(dir, { path: "limits.max_turnz" }, CLI);
    assert.equal(r.valid, true);
    assert.deepEqual(await errors(), []);
    const text = await Deno.readTextFile(`${dir}/harness.yaml`);
    assert.match(text, /# My bot, with two mistakes\./, "comments are kept");
    assert.doesNotMatch(text, /max_turnz/);
  });

  await t.step("an unknown key that is not there is still an unknown path", async () => {
    await assert.rejects(
      () => removeItem(dir, { path: "limits.max_turnzz" }, CLI),
      kind("bad_input", /Unknown path/),
    );
  });
});

Deno.test("replaceSpecText() fixes a file that does not parse, and keeps frozen fields", async (t) => {
  await using _home = await tempHome();
  await using root = await tempDir();
  const dir = `${root.path}/whole`;
  await Deno.mkdir(dir);
  const good = "id: whole\nmodel:\n  provider: scripted\n  replies:\n    - text: hi\n";
  await Deno.writeTextFile(`${dir}/harness.yaml`, "id: whole\nmodel: [unclosed\n");

  await t.step("with no version recorded, frozen fields cannot be compared: confirm", async () => {
    await assert.rejects(
      () => replaceSpecText(dir, good, SPEC_TAB),
      kind("forbidden", /no earlier version is recorded/),
    );
    await replaceSpecText(dir, good, CLI); // a person's confirmed edit; recorded as a version
    // A hand edit on disk breaks it again.
    await Deno.writeTextFile(`${dir}/harness.yaml`, "id: whole\nmodel: [unclosed\n");
  });

  await t.step("a field edit cannot reach a file that does not parse", async () => {
    await assert.rejects(
      () => setField(dir, "description", "x", CLI),
      kind("bad_input", /fix its text as a whole/),
    );
  });

  await t.step("the whole text replaces it, comments included", async () => {
    const text =
      "# fixed by hand\nid: whole\nmodel:\n  provider: scripted\n  replies:\n    - text: hi\n";
    const r = await replaceSpecText(dir, text, SPEC_TAB);
    assert.equal(r.valid, true);
    assert.equal(await Deno.readTextFile(`${dir}/harness.yaml`), text);
  });

  await t.step("a text that adds a problem is refused", async () => {
    const before = await Deno.readTextFile(`${dir}/harness.yaml`);
    await assert.rejects(
      () => replaceSpecText(dir, before + "limits:\n  max_turns: -1\n", SPEC_TAB),
      kind("bad_input", /max_turns/),
    );
    assert.equal(await Deno.readTextFile(`${dir}/harness.yaml`), before);
  });

  await t.step("a frozen field changed in the text is refused for the Spec tab", async () => {
    const before = await Deno.readTextFile(`${dir}/harness.yaml`);
    const changed = before.replace("text: hi", "text: bye");
    // Asked before writing: the roots it would change, for the page to confirm first.
    assert.deepEqual(await frozenRootsChangedByText(dir, changed, "workbench"), ["model"]);
    assert.deepEqual(
      await frozenRootsChangedByText(dir, changed.replace("id: whole", "id: other"), "workbench"),
      ["id", "model"],
    );
    assert.deepEqual(
      await frozenRootsChangedByText(
        dir,
        `${before}# a comment
`,
        "workbench",
      ),
      [],
    );
    assert.deepEqual(await frozenRootsChangedByText(dir, changed, "local"), []);
    await assert.rejects(
      () => replaceSpecText(dir, changed, SPEC_TAB),
      kind("forbidden", /"model" is a frozen field/),
    );
    assert.equal(await Deno.readTextFile(`${dir}/harness.yaml`), before);
    // Comments and layout of frozen fields may change; their values may not.
    await replaceSpecText(dir, before.replace("# fixed by hand", "# fixed again"), SPEC_TAB);
    // The local CLI's policy (a person's confirmed edit) may change it.
    await replaceSpecText(dir, changed, CLI);
    assert.match(await Deno.readTextFile(`${dir}/harness.yaml`), /text: bye/);
  });
});

Deno.test("workbench: PUT /api/harnesses/{id}/spec saves the whole text through the same rules", async () => {
  await using home = await tempDir();
  await using cwd = await tempDir();
  const dir = await brokenHarness(`${cwd.path}`);
  await using wb = await startWorkbenchProcess({
    home: home.path,
    cwd: cwd.path,
    args: ["--dir", dir],
  });
  const fixed = BROKEN.replace('"ten"', "10").replace("  max_turnz: 3       # a typo\n", "");
  const r = await workbenchCall(wb, "PUT", "/api/harnesses/fixme/spec", { text: fixed });
  assert.equal(r.status, 200, JSON.stringify(r.json));
  assert.equal(r.json.data.valid, true);
  // The page asks first which frozen fields a text would change (200, nothing written) …
  const asked = await workbenchCall(wb, "POST", "/api/harnesses/fixme/spec/frozen-changes", {
    text: fixed.replace("id: fixme", "id: other"),
  });
  assert.equal(asked.status, 200, JSON.stringify(asked.json));
  assert.deepEqual(asked.json.data, { frozen_changed: ["id"] });
  const none = await workbenchCall(wb, "POST", "/api/harnesses/fixme/spec/frozen-changes", {
    text: fixed.replace("max_turns: 10", "max_turns: 9"),
  });
  assert.deepEqual(none.json.data, { frozen_changed: [] });
  const unknown = await workbenchCall(wb, "POST", "/api/harnesses/fixme/spec/frozen-changes", {
    text: fixed,
    confirm_frozen: true,
  });
  assert.equal(unknown.status, 400, "only {text}");
  // … and the write itself still refuses an unconfirmed one.
  const frozen = await workbenchCall(wb, "PUT", "/api/harnesses/fixme/spec", {
    text: fixed.replace("id: fixme", "id: other"),
  });
  assert.equal(frozen.status, 403);
  const bad = await workbenchCall(wb, "PUT", "/api/harnesses/fixme/spec", { text: 12 });
  assert.equal(bad.status, 400);
  assert.equal(await Deno.readTextFile(`${dir}/harness.yaml`), fixed);
});
