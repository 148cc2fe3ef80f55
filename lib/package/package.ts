/**
 * `framework package`: a harness as one deployable `.tar.gz` (CONTRACT.md "Generated interface,
 * packages"): its files — never `.framework/`, `.env*`, the trace folder, `workspace/uploads/`,
 * `.git` or symbolic links — plus a `framework.lock.json` with every file's SHA-256, a `Dockerfile`
 * and a `DEPLOY.md` written for that harness. Unpacked, the folder serves with `framework
 * control-plane` as it is. `verifyPackage` checks every hash.
 *
 * @module
 */

import { join } from "node:path";
import { badInput } from "../errors.ts";
import { FRAMEWORK_RUN_FLAGS } from "../launch_flags.ts";
import { writeFileAtomic } from "../fs/atomic_write.ts";
import { sha256Hex } from "../hash.ts";
import { sensitiveName, traceDir } from "../paths.ts";
import { loadSpec } from "../spec/load.ts";
import { FRAMEWORK_VERSION } from "../version.ts";
import { type TarFile, tarGz, untarGz } from "./tar.ts";

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

/**
 * Writes the package of a harness.
 *
 * @example
 * ```ts
 * const { path } = await createPackage("./harnesses/support-bot");
 * ```
 * @param dir The harness folder.
 * @param out The file to write (default `<id>-<spec_version[:12]>.tar.gz` in the current folder).
 * @returns The package's path, its lock and its size.
 */
export async function createPackage(
  dir: string,
  out?: string,
): Promise<{ path: string; lock: PackageLock; bytes: number }> {
  const loaded = await loadSpec(dir);
  const files = await listFiles(loaded.dir, traceDir(loaded.dir, loaded.spec.logging?.trace_dir));
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

/** Every file of the harness a package holds, read into memory. */
async function listFiles(dir: string, traces: string): Promise<TarFile[]> {
  const files: TarFile[] = [];
  const walk = async (folder: string, rel: string) => {
    for await (const e of Deno.readDir(folder)) {
      if (e.isSymlink || sensitiveName(e.name) || e.name === ".git") continue;
      const absolute = join(folder, e.name);
      const relative = rel ? `${rel}/${e.name}` : e.name;
      if (absolute === traces || absolute.startsWith(traces + "/")) continue;
      if (relative === "workspace/uploads") continue;
      if (e.isDirectory) await walk(absolute, relative);
      else if (e.isFile && !GENERATED.has(relative)) {
        files.push({ path: relative, bytes: await Deno.readFile(absolute) });
      }
    }
  };
  await walk(dir, "");
  return files;
}

/**
 * Checks a package: every file the lock lists is there with its hash, and nothing else is.
 *
 * @param file The `.tar.gz`.
 * @returns The lock, when every hash matches.
 * @throws `bad_input` naming the first file that differs, is missing or is not listed.
 */
export async function verifyPackage(file: string): Promise<PackageLock> {
  let bytes: Uint8Array;
  try {
    bytes = await Deno.readFile(file);
  } catch {
    throw badInput(`No package at ${JSON.stringify(file)}`);
  }
  const files = await untarGz(bytes);
  const lockFile = files.find((f) => f.path === LOCK_FILE);
  if (!lockFile) throw badInput(`${file} has no ${LOCK_FILE}: it is not a framework package`);
  let lock: PackageLock;
  try {
    lock = JSON.parse(new TextDecoder().decode(lockFile.bytes));
  } catch {
    throw badInput(`${LOCK_FILE} in ${file} is not JSON`);
  }
  const listed = new Map(lock.files.map((f) => [f.path, f]));
  for (const f of files) {
    if (GENERATED.has(f.path)) continue;
    const entry = listed.get(f.path);
    if (!entry) throw badInput(`${f.path} is in the package but not in ${LOCK_FILE}`);
    if (entry.bytes !== f.bytes.length || entry.sha256 !== sha256Hex(f.bytes)) {
      throw badInput(`${f.path} does not match its hash in ${LOCK_FILE}: the package was changed`, {
        path: f.path,
      });
    }
    listed.delete(f.path);
  }
  const missing = [...listed.keys()];
  if (missing.length) throw badInput(`${missing[0]} is listed in ${LOCK_FILE} but missing`);
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
