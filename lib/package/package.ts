/**
 * `framework package`: a harness as one deployable `.tar.gz` (docs/shipping.md): its files — never
 * `.framework/`, `.env*`, a trace folder (today's and every former one the hive knows),
 * `workspace/uploads/`, `.git` or symbolic links; a hard link is refused — plus a
 * `framework.lock.json` with every file's SHA-256, a `Dockerfile` and a `DEPLOY.md` written for
 * that harness. Unpacked, the folder serves with `framework control-plane` as it is.
 * `verifyPackage` checks every hash, streaming, within the package limits.
 *
 * @module
 */

import { createHash } from "node:crypto";
import { sep } from "node:path";
import { badInput } from "../errors.ts";
import { FRAMEWORK_RUN_FLAGS } from "../launch_flags.ts";
import { writeFileAtomic } from "../fs/atomic_write.ts";
import { walkTree } from "../fs/copy_tree.ts";
import { openChecked, readAllAndClose, within } from "../fs/safe_path.ts";
import { sha256Hex } from "../hash.ts";
import type { Hive } from "../hive/open.ts";
import { openHive } from "../hive/open.ts";
import { protectedTraceDirs } from "../journal/trace_dir.ts";
import { sensitiveName } from "../paths.ts";
import { loadSpec } from "../harness_spec/load.ts";
import { FRAMEWORK_VERSION } from "../version.ts";
import { checkFileSize, readTarGz, type TarFile, tarGz } from "./tar.ts";

/** The lock file at the package's root. */
export const LOCK_FILE = "framework.lock.json";

/** `framework.lock.json`. */
export interface PackageLock {
  id: string;
  spec_version: string;
  framework_version: string;
  created_at: string;
  files: { path: string; sha256: string; bytes: number }[];
}

/** Files the package writes itself (not copied from the harness, not in the lock's list). */
const GENERATED = new Set([LOCK_FILE, "Dockerfile", "DEPLOY.md"]);

/** The largest `framework.lock.json` a package may hold. */
const MAX_LOCK_BYTES = 16 * 1024 * 1024;

/**
 * Writes the package of a harness.
 *
 * @example
 * ```ts
 * const { path } = await createPackage("./harnesses/support-bot");
 * ```
 * @param dir The harness folder.
 * @param out The file to write (default `<id>-<spec_version[:12]>.tar.gz` in the current folder).
 * @param db The hive (the trace folders its runs recorded are left out).
 * @returns The package's path, its lock and its size.
 * @throws `bad_input` for a hard link, or a harness over the package limits.
 */
export async function createPackage(
  dir: string,
  out?: string,
  db: Hive = openHive(),
): Promise<{ path: string; lock: PackageLock; bytes: number }> {
  const loaded = await loadSpec(dir);
  const traces = protectedTraceDirs(loaded.dir, loaded.spec.logging?.trace_dir, db);
  const files = await listFiles(loaded.dir, traces);
  files.sort((a, b) => a.path.localeCompare(b.path));
  const lock: PackageLock = {
    id: loaded.spec.id,
    spec_version: loaded.version,
    framework_version: FRAMEWORK_VERSION,
    created_at: new Date().toISOString(),
    files: files.map((f) => ({ path: f.path, sha256: sha256Hex(f.bytes), bytes: f.bytes.length })),
  };
  const encode = (s: string) => new TextEncoder().encode(s);
  const archive = await tarGz([
    { path: LOCK_FILE, bytes: encode(JSON.stringify(lock, null, 2) + "\n") },
    { path: "Dockerfile", bytes: encode(dockerfile(loaded.spec.id)) },
    { path: "DEPLOY.md", bytes: encode(deployGuide(loaded.spec.id, loaded.version)) },
    ...files,
  ]);
  const path = out ?? `${loaded.spec.id}-${loaded.version.slice(0, 12)}.tar.gz`;
  await writeFileAtomic(path, archive);
  return { path, lock, bytes: archive.length };
}

/**
 * Every file of the harness a package holds, read into memory, each through the one sensitive-path
 * rule (a hard link is refused: its bytes may be `.env`'s under another name).
 */
async function listFiles(dir: string, traces: readonly string[]): Promise<TarFile[]> {
  const files: TarFile[] = [];
  const kept = walkTree(dir, (e) => {
    const name = e.relative.slice(e.relative.lastIndexOf(sep) + 1);
    if (sensitiveName(name) || name === ".git") return false;
    if (traces.some((t) => within(t, e.absolute))) return false;
    const path = e.relative.split(sep).join("/");
    return path !== "workspace/uploads" && (e.isDirectory || !GENERATED.has(path));
  });
  for await (const e of kept) {
    if (e.isDirectory) continue;
    const path = e.relative.split(sep).join("/");
    const { file, info } = await openChecked(e.absolute, path);
    try {
      checkFileSize(path, info.size);
    } catch (err) {
      file.close();
      throw err;
    }
    files.push({ path, bytes: await readAllAndClose(file) });
  }
  return files;
}

/**
 * Checks a package: it begins with its lock, every file the lock lists is there with its hash, and
 * nothing else is. The archive is read as a stream (memory stays bounded whatever it holds), and
 * every header must be one `framework package` writes, so the files checked are the files `tar -x`
 * unpacks.
 *
 * @param file The `.tar.gz`.
 * @returns The lock, when every hash matches.
 * @throws `bad_input` naming the first file that differs, is missing or is not listed, for an
 *   archive the writer would not make, and for one over the package limits.
 */
export async function verifyPackage(file: string): Promise<PackageLock> {
  let archive: Deno.FsFile;
  try {
    archive = await Deno.open(file, { read: true });
  } catch {
    throw badInput(`No package at ${JSON.stringify(file)}`);
  }
  let lock: PackageLock | undefined;
  const listed = new Map<string, { sha256: string; bytes: number }>();
  const seen = new Set<string>();
  await readTarGz(archive.readable, async (entry, data) => {
    if (!lock) {
      if (entry.path !== LOCK_FILE) {
        throw badInput(
          `${file} does not begin with ${LOCK_FILE}: it is not a framework package (make it with framework package)`,
        );
      }
      if (entry.size > MAX_LOCK_BYTES) throw badInput(`${LOCK_FILE} in ${file} is too large`);
      const parts: Uint8Array[] = [];
      for await (const part of data) parts.push(part.slice());
      lock = parseLock(new Uint8Array(await new Blob(parts as BlobPart[]).arrayBuffer()), file);
      for (const f of lock.files) listed.set(f.path, f);
      seen.add(LOCK_FILE);
      return;
    }
    if (seen.has(entry.path)) throw badInput(`${entry.path} is in the package twice`);
    seen.add(entry.path);
    if (GENERATED.has(entry.path)) return;
    const expected = listed.get(entry.path);
    if (!expected) throw badInput(`${entry.path} is in the package but not in ${LOCK_FILE}`);
    const changed = () =>
      badInput(`${entry.path} does not match its hash in ${LOCK_FILE}: the package was changed`, {
        path: entry.path,
      });
    if (entry.size !== expected.bytes) throw changed();
    const hash = createHash("sha256");
    for await (const part of data) hash.update(part);
    if (hash.digest("hex") !== expected.sha256) throw changed();
    listed.delete(entry.path);
  });
  if (!lock) throw badInput(`${file} has no ${LOCK_FILE}: it is not a framework package`);
  const missing = [...listed.keys()];
  if (missing.length) throw badInput(`${missing[0]} is listed in ${LOCK_FILE} but missing`);
  return lock;
}

/** A lock as the writer writes it, or `bad_input` saying what is wrong with it. */
function parseLock(bytes: Uint8Array, file: string): PackageLock {
  const wrong = (why: string) => badInput(`${LOCK_FILE} in ${file} ${why}`);
  let lock: PackageLock;
  try {
    lock = JSON.parse(new TextDecoder("utf-8", { fatal: true }).decode(bytes));
  } catch {
    throw wrong("is not JSON");
  }
  const text = (v: unknown) => typeof v === "string";
  if (
    !lock || typeof lock !== "object" || !text(lock.id) || !text(lock.spec_version) ||
    !Array.isArray(lock.files)
  ) {
    throw wrong("is not a lock: it needs id, spec_version and files");
  }
  const paths = new Set<string>();
  for (const f of lock.files as unknown[]) {
    const entry = f as PackageLock["files"][number];
    if (
      !entry || typeof entry !== "object" || !text(entry.path) ||
      !/^[0-9a-f]{64}$/.test(String(entry.sha256)) || !Number.isSafeInteger(entry.bytes) ||
      entry.bytes < 0
    ) {
      throw wrong("lists a file without a path, a SHA-256 or a size");
    }
    if (paths.has(entry.path)) throw wrong(`lists ${entry.path} twice`);
    paths.add(entry.path);
  }
  return lock;
}

function dockerfile(id: string): string {
  // The control plane with the flags every entry point uses (never -A).
  const serve = ["deno", "run", ...FRAMEWORK_RUN_FLAGS, "/opt/framework/cli.ts", "control-plane"];
  serve.push("/srv/harness", "--host", "0.0.0.0", "--port", "8420", "--approve");
  return `# The control plane of ${id}. Build with the framework's checkout as a named context:
#   docker build --build-context framework=/path/to/framework -t ${id} .
FROM denoland/deno:2.9.6
COPY --from=framework . /opt/framework
COPY . /srv/harness
WORKDIR /srv
RUN deno cache /opt/framework/cli.ts
ENV FRAMEWORK_HOME=/srv/home
EXPOSE 8420
# Keys are authorized at run time into a mounted volume (see DEPLOY.md); no secret is in this image.
CMD [${serve.map((arg) => JSON.stringify(arg)).join(", ")}]
`;
}

function deployGuide(id: string, version: string): string {
  return `# Deploying ${id}

This package holds the harness \`${id}\` (spec version \`${version.slice(0, 12)}\`), a
\`framework.lock.json\` with the SHA-256 of every file, this guide and a Dockerfile. It holds no secret:
no \`.env\`, no keys, no traces.

1. Check it: \`framework package --verify ${id}-${version.slice(0, 12)}.tar.gz\`.
2. Unpack it into a folder: \`mkdir ${id} && tar -xzf ${id}-${
    version.slice(0, 12)
  }.tar.gz -C ${id}\`.
3. Put the model provider's key in \`${id}/.env\` on the deploy box (for example
   \`OPENAI_API_KEY=…\`), readable only by the service's user.
4. Authorize the members' public keys (they keep their private keys):
   \`framework keys authorize --harness ${id} --scope run --scope read -- <name> <public key>\`.
5. Start the control plane on loopback and put it behind a TLS proxy (Caddy, nginx) or a tunnel:
   \`framework control-plane ${id} --port 8420 --approve\`.
   \`GET /\` serves the harness's page; \`POST /run\` needs a token with the run scope, which each
   member signs on their own machine (\`framework keys sign --key … --scope run\`).

With Docker: \`docker build --build-context framework=/path/to/framework -t ${id} .\`, then run it with
a volume for \`/srv/home\` (the authorized keys and the hive) and the \`.env\` mounted read-only.
`;
}
