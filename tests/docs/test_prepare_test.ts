/**
 * The README's test command on a machine without Chromium: the `test` task's preparation
 * (scripts/test_prepare.ts), run exactly as deno.json writes it, with a PATH that has no chromium,
 * either installs it with `apt-get` (here a fake `apt-get` that records its arguments and "installs"
 * a stand-in, so nothing is really installed) or prints one instruction and exits 1 before any test
 * runs. `CHROMIUM_PATH` is honoured, and `.ci/run` runs the README's command with no install of its
 * own.
 *
 * @module
 */

import assert from "node:assert/strict";
import { join } from "node:path";
import { NEEDS, prepare } from "../../scripts/test_prepare.ts";
import { tempDir } from "../helpers/temp.ts";

const ROOT = new URL("../../", import.meta.url).pathname;
const config = JSON.parse(await Deno.readTextFile(join(ROOT, "deno.json"))) as {
  tasks: Record<string, string>;
};
const ROOT_USER = Deno.uid() === 0;

/** The `test` task's preparation command: `deno run <flags> scripts/test_prepare.ts`. */
function preparation(): string[] {
  const [first, ...rest] = config.tasks.test!.split(" && ");
  assert.ok(rest.length, "the test task prepares, then tests");
  const words = first!.split(" ");
  assert.equal(words[0], "deno");
  assert.equal(words.at(-1), "scripts/test_prepare.ts");
  return [Deno.execPath(), ...words.slice(1)];
}

/** A folder for the PATH holding fake `apt-get` and `sudo` scripts that log their arguments. */
async function fakeTools(
  dir: string,
  apt: "installs" | "fails" | "installs nothing" | "absent",
): Promise<{ bin: string; log: string }> {
  const bin = join(dir, "bin");
  const log = join(dir, "calls.log");
  await Deno.mkdir(bin);
  await Deno.writeTextFile(log, "");
  const script = (body: string) => `#!/bin/sh\n${body}\n`;
  if (apt !== "absent") {
    const install = apt === "installs"
      ? `case "$1" in install) printf '#!/bin/sh\\n' > ${bin}/chromium; /bin/chmod 755 ${bin}/chromium;; esac`
      : "";
    await Deno.writeTextFile(
      join(bin, "apt-get"),
      script(
        `echo "apt-get $* [DEBIAN_FRONTEND=$DEBIAN_FRONTEND]" >> ${log}\n${install}\n${
          apt === "fails" ? "exit 100" : "exit 0"
        }`,
      ),
      { mode: 0o755 },
    );
  }
  await Deno.writeTextFile(join(bin, "sudo"), script(`echo "sudo" >> ${log}\nexec "$@"`), {
    mode: 0o755,
  });
  return { bin, log };
}

/** Runs the preparation as the test task does, with only `env` (no chromium on its PATH). */
async function runPreparation(env: Record<string, string>) {
  const [cmd, ...args] = preparation();
  const out = await new Deno.Command(cmd!, {
    args,
    cwd: ROOT,
    env: { HOME: Deno.env.get("HOME") ?? "/root", NO_COLOR: "1", ...env },
    clearEnv: true,
    stdin: "null",
    stdout: "piped",
    stderr: "piped",
  }).output();
  return {
    code: out.code,
    stdout: new TextDecoder().decode(out.stdout),
    stderr: new TextDecoder().decode(out.stderr),
  };
}

Deno.test("test command: without chromium on the PATH, it installs Debian's chromium with apt-get", async () => {
  await using tmp = await tempDir();
  const { bin, log } = await fakeTools(tmp.path, "installs");
  const r = await runPreparation({ PATH: bin });
  assert.equal(r.code, 0, r.stderr);
  const calls = (await Deno.readTextFile(log)).trim().split("\n");
  const apt = calls.filter((c) => c.startsWith("apt-get"));
  assert.deepEqual(apt, [
    "apt-get update -qq [DEBIAN_FRONTEND=noninteractive]",
    "apt-get install -y -qq chromium [DEBIAN_FRONTEND=noninteractive]",
  ]);
  assert.equal(calls.includes("sudo"), !ROOT_USER, "sudo only when not root");
  assert.match(r.stderr, /The tests need Chromium .*: installing chromium/);
  assert.equal(r.stdout, "", "nothing on stdout (the test run's summary stays last)");
});

Deno.test("test command: without chromium and without apt-get, one instruction and exit 1", async () => {
  await using tmp = await tempDir();
  const { bin, log } = await fakeTools(tmp.path, "absent");
  const r = await runPreparation({ PATH: bin });
  assert.equal(r.code, 1);
  assert.equal(await Deno.readTextFile(log), "", "nothing ran");
  const lines = r.stderr.trim().split("\n");
  assert.equal(lines.length, 1, r.stderr);
  assert.match(lines[0]!, /^The tests need Chromium .* no apt-get/);
  assert.match(lines[0]!, /`sudo apt-get install -y chromium`/);
  assert.match(lines[0]!, /set CHROMIUM_PATH/);
});

Deno.test("test command: an apt-get that fails, or installs no chromium, ends in one instruction", async () => {
  for (
    const [apt, why] of [["fails", /apt-get update` failed \(exit 100\)/], [
      "installs nothing",
      /after apt-get install there is still no Chromium\./,
    ]] as const
  ) {
    await using tmp = await tempDir();
    const { bin } = await fakeTools(tmp.path, apt);
    const r = await runPreparation({ PATH: bin });
    assert.equal(r.code, 1, apt);
    const last = r.stderr.trim().split("\n").at(-1)!;
    assert.match(last, why);
    assert.match(last, /Install it \(on Debian: `sudo apt-get install -y chromium`\)/);
  }
});

Deno.test("test command: CHROMIUM_PATH is honoured (nothing installed), and a wrong one is named", async () => {
  await using tmp = await tempDir();
  const { bin, log } = await fakeTools(tmp.path, "installs");
  const own = join(tmp.path, "my-chromium");
  await Deno.writeTextFile(own, "#!/bin/sh\n", { mode: 0o755 });
  const ok = await runPreparation({ PATH: bin, CHROMIUM_PATH: own });
  assert.equal(ok.code, 0, ok.stderr);
  assert.equal(ok.stderr, "");

  const wrong = await runPreparation({ PATH: bin, CHROMIUM_PATH: join(tmp.path, "none") });
  assert.equal(wrong.code, 1);
  assert.match(wrong.stderr.trim(), /^CHROMIUM_PATH=\S+ is not an executable file: point it at/);
  assert.equal(await Deno.readTextFile(log), "", "apt-get never ran");
});

Deno.test("test command: with chromium on the PATH, the preparation does nothing", async () => {
  await using tmp = await tempDir();
  const { bin, log } = await fakeTools(tmp.path, "installs");
  await Deno.writeTextFile(join(bin, "chromium"), "#!/bin/sh\n", { mode: 0o755 });
  const r = await runPreparation({ PATH: bin });
  assert.equal(r.code, 0, r.stderr);
  assert.equal(r.stderr, "");
  assert.equal(await Deno.readTextFile(log), "");
});

Deno.test("test command: not root, apt-get runs through sudo; without sudo, one instruction", async () => {
  await using tmp = await tempDir();
  const { bin, log } = await fakeTools(tmp.path, "installs");
  const said: string[] = [];
  const env = new Map([["PATH", bin]]);
  const done = await prepare(NEEDS, { env, root: false, say: (l) => said.push(l) });
  assert.equal(done.problem, undefined);
  assert.deepEqual(done.ran.map((w) => w.slice(0, 2)), [
    [join(bin, "sudo"), join(bin, "apt-get")],
    [join(bin, "sudo"), join(bin, "apt-get")],
  ]);
  assert.deepEqual(said.slice(1), [
    "$ sudo apt-get update -qq",
    "$ sudo apt-get install -y -qq chromium",
  ]);
  assert.equal((await Deno.readTextFile(log)).split("\n").filter((l) => l === "sudo").length, 2);

  await Deno.remove(join(bin, "chromium"));
  await Deno.remove(join(bin, "sudo"));
  const refused = await prepare(NEEDS, { env, root: false, say: () => {} });
  assert.deepEqual(refused.ran, []);
  assert.match(refused.problem!, /installing needs root, and there is no sudo here/);
});

Deno.test("the README's test command is .ci/run's, and only the test task installs anything", async () => {
  const readme = await Deno.readTextFile(join(ROOT, "README.md"));
  const ci = await Deno.readTextFile(join(ROOT, ".ci/run"));
  assert.match(readme, /^npx -y deno@2\.9\.6 task test /m);
  assert.match(ci, /^npx -y deno@2\.9\.6 task test /m);
  assert.doesNotMatch(ci, /apt-get|chromium/i, ".ci/run has no install of its own");
  assert.match(config.tasks.test!, /^deno run [^&]*scripts\/test_prepare\.ts && deno test /);
});
