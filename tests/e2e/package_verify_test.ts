/**
 * `framework package --verify` reads an archive as `tar -x` does, or refuses it. Archives are
 * crafted byte by byte here: a base-256 size and an old-GNU header make verify (before the fix) check
 * other bytes than the ones `tar -x` unpacks — an unlisted script, a replaced `harness.yaml` —
 * so every header form the writer never makes is refused (exit 2, `bad_input`, saying what differs).
 * And verify streams: a gzip bomb (a few hundred KB that unpack to 300 MiB) is refused at the
 * package limit with the process's peak memory far below what it unpacks to.
 *
 * @module
 */

import assert from "node:assert/strict";
import { createHash } from "node:crypto";
import { join } from "node:path";
import { runCli } from "../helpers/cli.ts";
import { jsonError, jsonOk } from "../helpers/cli_assert.ts";
import { tempDir } from "../helpers/temp.ts";

const CHILDREN = new URL("../helpers/children/", import.meta.url).pathname;
const encoder = new TextEncoder();

/** A header, as the writer makes it unless a field is overridden. */
interface RawHeader {
  name: string;
  size: number;
  /** The 12 raw bytes of the size field. */
  sizeField?: Uint8Array;
  /** The 8 bytes of magic and version. */
  magic?: string;
  prefix?: string;
  type?: string;
  owner?: string;
}

function rawHeader(h: RawHeader): Uint8Array {
  const block = new Uint8Array(512);
  const put = (value: string | Uint8Array, at: number) =>
    block.set(typeof value === "string" ? encoder.encode(value) : value, at);
  put(h.name, 0);
  put("0000644\0", 100);
  put("0000000\0", 108);
  put("0000000\0", 116);
  put(h.sizeField ?? h.size.toString(8).padStart(11, "0") + "\0", 124);
  put("00000000000\0", 136);
  put("        ", 148);
  put(h.type ?? "0", 156);
  put(h.magic ?? "ustar\u000000", 257);
  if (h.owner) put(h.owner, 265);
  if (h.prefix) put(h.prefix, 345);
  let sum = 0;
  for (const b of block) sum += b;
  put(sum.toString(8).padStart(6, "0") + "\0 ", 148);
  return block;
}

/** A file: its header and its bytes padded to whole blocks. */
function entry(h: Omit<RawHeader, "size">, data: Uint8Array): Uint8Array[] {
  return [
    rawHeader({ ...h, size: data.length }),
    data,
    new Uint8Array((512 - data.length % 512) % 512),
  ];
}

const END = new Uint8Array(1024);

function sha256(data: Uint8Array): string {
  return createHash("sha256").update(data).digest("hex");
}

/** A lock listing files as `{path, sha256, bytes}`. */
function lock(files: { path: string; sha256: string; bytes: number }[]): Uint8Array[] {
  const text = JSON.stringify({
    id: "crafted",
    spec_version: "0".repeat(64),
    framework_version: "0",
    created_at: "2020-01-01T00:00:00.000Z",
    files,
  });
  return entry({ name: "framework.lock.json" }, encoder.encode(text));
}

function listed(path: string, data: Uint8Array) {
  return { path, sha256: sha256(data), bytes: data.length };
}

/** Gzips parts (bytes or a generator of them) into a file, streaming. */
async function gzipTo(path: string, parts: Iterable<Uint8Array> | AsyncIterable<Uint8Array>) {
  const source = ReadableStream.from(parts).pipeThrough(
    new TransformStream<Uint8Array, Uint8Array<ArrayBuffer>>({
      transform: (chunk, out) => out.enqueue(chunk.slice()),
    }),
  );
  const file = await Deno.open(path, { write: true, createNew: true });
  await source.pipeThrough(new CompressionStream("gzip")).pipeTo(file.writable);
}

async function untar(archive: string, into: string): Promise<void> {
  await Deno.mkdir(into);
  const out = await new Deno.Command("tar", { args: ["-xzf", archive, "-C", into] }).output();
  assert.equal(out.code, 0, new TextDecoder().decode(out.stderr));
}

const HARNESS = encoder.encode("id: crafted\nmodel: {provider: scripted, name: x}\n");

Deno.test("--verify refuses the header forms that make tar -x unpack other bytes", async (t) => {
  await using home = await tempDir("fw-pv-home-");
  await using cwd = await tempDir("fw-pv-cwd-");
  const cli = (args: string[]) => runCli(args, { home: home.path, cwd: cwd.path });
  const verify = (file: string) => cli(["package", "--verify", file, "--json"]);

  await t.step("a base-256 size: tar unpacks bytes and a file the lock never saw", async () => {
    const notes = encoder.encode("bytes verify never saw\n");
    const sizeField = new Uint8Array(12);
    sizeField[0] = 0x80;
    sizeField[11] = notes.length;
    const archive = join(cwd.path, "base256.tar.gz");
    await gzipTo(archive, [
      ...lock([listed("harness.yaml", HARNESS), listed("notes.txt", new Uint8Array())]),
      ...entry({ name: "harness.yaml" }, HARNESS),
      rawHeader({ name: "notes.txt", size: notes.length, sizeField }),
      notes,
      new Uint8Array(512 - notes.length),
      ...entry({ name: "evil.sh" }, encoder.encode("echo pwned\n")),
      END,
    ]);
    const unpacked = join(cwd.path, "base256");
    await untar(archive, unpacked);
    assert.equal(await Deno.readTextFile(join(unpacked, "notes.txt")), "bytes verify never saw\n");
    assert.equal(await Deno.readTextFile(join(unpacked, "evil.sh")), "echo pwned\n");
    const refused = jsonError(await verify(archive), "bad_input", 2);
    assert.match(refused.message, /not one framework package writes: the size of "notes.txt"/);
    assert.match(refused.message, /Make it again with framework package/);
  });

  await t.step(
    "an old-GNU header: tar unpacks another harness.yaml than verify checked",
    async () => {
      const evil = encoder.encode("id: crafted\nmodel: {provider: openai, name: evil}\n");
      const archive = join(cwd.path, "oldgnu.tar.gz");
      await gzipTo(archive, [
        ...lock([listed("harness.yaml", HARNESS), listed("docs/harness.yaml", evil)]),
        ...entry({ name: "harness.yaml" }, HARNESS),
        // Old GNU has no prefix field: bytes 345.. are times, so tar names this "harness.yaml".
        ...entry({ name: "harness.yaml", prefix: "docs", magic: "ustar  \0" }, evil),
        END,
      ]);
      const unpacked = join(cwd.path, "oldgnu");
      await untar(archive, unpacked);
      assert.match(await Deno.readTextFile(join(unpacked, "harness.yaml")), /evil/);
      const refused = jsonError(await verify(archive), "bad_input", 2);
      assert.match(refused.message, /at byte 2048 is not a POSIX ustar header \(old GNU/);
    },
  );

  await t.step("other forms the writer never makes are refused", async () => {
    const cases: [string, Uint8Array[], RegExp][] = [
      ["a pax header", [
        ...lock([listed("harness.yaml", HARNESS)]),
        ...entry({ name: "PaxHeader", type: "x" }, encoder.encode("30 path=harness.yaml\n")),
        ...entry({ name: "harness.yaml" }, HARNESS),
        END,
      ], /"PaxHeader", which is not a regular file/],
      ["an owner name", [
        ...lock([listed("harness.yaml", HARNESS)]),
        ...entry({ name: "harness.yaml", owner: "root" }, HARNESS),
        END,
      ], /differs in its owner name field/],
      ["a file after a lone zero block", [
        ...lock([listed("harness.yaml", HARNESS)]),
        ...entry({ name: "harness.yaml" }, HARNESS),
        new Uint8Array(512),
        ...entry({ name: "evil.sh" }, encoder.encode("echo pwned\n")),
        END,
      ], /end marker is not two zero blocks/],
      ["data after the end", [
        ...lock([listed("harness.yaml", HARNESS)]),
        ...entry({ name: "harness.yaml" }, HARNESS),
        END,
        ...entry({ name: "evil.sh" }, encoder.encode("echo pwned\n")),
      ], /data after its end marker/],
      ["a file twice", [
        ...lock([listed("harness.yaml", HARNESS)]),
        ...entry({ name: "harness.yaml" }, HARNESS),
        ...entry({ name: "harness.yaml" }, HARNESS),
        END,
      ], /harness\.yaml is in the package twice/],
      ["a path not in its plain form", [
        ...lock([listed("harness.yaml", HARNESS)]),
        ...entry({ name: "./harness.yaml" }, HARNESS),
        END,
      ], /not in its plain form/],
      ["a file over the per-file limit", [
        ...lock([listed("harness.yaml", HARNESS)]),
        rawHeader({ name: "big.bin", size: 2 ** 30 }),
        END,
      ], /big\.bin is 1024 MiB; a package holds files of 64 MiB at most/],
      ["a lock that is not first", [
        ...entry({ name: "harness.yaml" }, HARNESS),
        ...lock([listed("harness.yaml", HARNESS)]),
        END,
      ], /does not begin with framework\.lock\.json/],
    ];
    for (const [what, parts, message] of cases) {
      const archive = join(cwd.path, `${what.replaceAll(" ", "-")}.tar.gz`);
      await gzipTo(archive, parts);
      const refused = jsonError(await verify(archive), "bad_input", 2);
      assert.match(refused.message, message, `${what}: ${refused.message}`);
    }
  });

  await t.step("what the writer makes still verifies", async () => {
    const archive = join(cwd.path, "plain.tar.gz");
    await gzipTo(archive, [
      ...lock([listed("harness.yaml", HARNESS), listed("docs/a.md", encoder.encode("a\n"))]),
      ...entry({ name: "harness.yaml" }, HARNESS),
      ...entry({ name: "docs/a.md" }, encoder.encode("a\n")),
      END,
    ]);
    assert.equal(jsonOk(await verify(archive)).verified, true);
  });
});

Deno.test("--verify streams a gzip bomb and refuses it at the limit, in bounded memory", async () => {
  await using home = await tempDir("fw-pv-home-");
  await using cwd = await tempDir("fw-pv-cwd-");
  // Five listed files of 60 MiB of zeros (each under the per-file limit, each with its true hash):
  // 300 MiB unpacked, over the 256 MiB a package holds, from a few hundred KB on disk.
  const MIB = new Uint8Array(1024 * 1024);
  const FILE_MIB = 60;
  const hash = createHash("sha256");
  for (let i = 0; i < FILE_MIB; i++) hash.update(MIB);
  const big = { sha256: hash.digest("hex"), bytes: FILE_MIB * MIB.length };
  const names = [1, 2, 3, 4, 5].map((i) => `data/big-${i}.bin`);
  async function* bomb(): AsyncGenerator<Uint8Array> {
    yield* lock(names.map((path) => ({ path, ...big })));
    for (const name of names) {
      yield rawHeader({ name, size: big.bytes });
      for (let i = 0; i < FILE_MIB; i++) yield MIB;
    }
    yield END;
  }
  const archive = join(cwd.path, "bomb.tar.gz");
  await gzipTo(archive, bomb());
  const onDisk = (await Deno.stat(archive)).size;
  assert.ok(onDisk < 1024 * 1024, `a small file on disk (${onDisk} bytes)`);

  const child = await new Deno.Command(Deno.execPath(), {
    args: ["run", "-A", "--quiet", `${CHILDREN}verify_peak.ts`, archive],
    stdout: "piped",
    stderr: "piped",
  }).output();
  assert.equal(child.code, 0, new TextDecoder().decode(child.stderr));
  const outcome = JSON.parse(new TextDecoder().decode(child.stdout));
  assert.equal(outcome.kind, "bad_input", JSON.stringify(outcome));
  assert.match(outcome.message, /unpacks to more than 256 MiB, the most a package holds/);
  // Streaming holds a few decompressed chunks at a time (a Deno process alone is about 60 MiB):
  // the peak stays below the 300 MiB unpacked, below even the 256 MiB limit. Read whole, it was
  // over 600 MiB.
  const peakMib = outcome.peak_kb / 1024;
  assert.ok(peakMib < 256, `peak memory ${Math.round(peakMib)} MiB while 300 MiB were unpacked`);

  const refused = jsonError(
    await runCli(["package", "--verify", archive, "--json"], { home: home.path, cwd: cwd.path }),
    "bad_input",
    2,
  );
  assert.match(refused.message, /more than 256 MiB/);
});
