/**
 * A throwaway PostgreSQL cluster for tests and benchmarks: `initdb` in a temporary folder, a free
 * port on 127.0.0.1, its unix socket in the same folder, stopped and removed at the end. Never a
 * shared server. As root, the cluster runs as the `postgres` user (PostgreSQL refuses root) and the
 * folder is given to it. Debian's `postgresql` provides the binaries (scripts/test_prepare.ts installs
 * it when missing).
 *
 * @module
 */

import { findPostgres } from "../../scripts/test_prepare.ts";

/** A running throwaway cluster. */
export interface TestCluster extends AsyncDisposable {
  /** `postgres://postgres@127.0.0.1:<port>/postgres`. */
  url: string;
  port: number;
  /** The cluster's data folder (its `postmaster.pid` names the server's process). */
  dataDir: string;
  /** Makes a fresh database and returns its URL. */
  createDatabase(name?: string): Promise<string>;
  /** Stops the server (fast shutdown), keeping its files, so a test can start it again. */
  stop(): Promise<void>;
  /** Starts it again on the same port after {@link TestCluster.stop}. */
  start(): Promise<void>;
  /** Stops it at once and removes its files, synchronously (for an `unload` handler). */
  removeSync(): void;
}

/**
 * The folder of PostgreSQL's server programs (scripts/test_prepare.ts finds it the same way it checks
 * for it): `$FRAMEWORK_PG_BIN`, else Debian's newest `/usr/lib/postgresql/<n>/bin`.
 *
 * @returns The folder, or undefined when PostgreSQL is not installed.
 */
export function postgresBinDir(): string | undefined {
  return findPostgres(Deno.env);
}

function freePort(): number {
  const l = Deno.listen({ hostname: "127.0.0.1", port: 0 });
  const port = (l.addr as Deno.NetAddr).port;
  l.close();
  return port;
}

const isRoot = Deno.uid() === 0;

async function sh(cmd: string, args: string[], env: Record<string, string> = {}): Promise<string> {
  const [command, full] = isRoot
    ? ["runuser", ["-u", "postgres", "--", cmd, ...args]]
    : [cmd, args];
  const out = await new Deno.Command(command, {
    args: full,
    env: { LC_ALL: "C", ...env },
    stdin: "null",
    stdout: "piped",
    stderr: "piped",
  }).output();
  const text = new TextDecoder().decode(out.stdout) + new TextDecoder().decode(out.stderr);
  if (!out.success) throw new Error(`${cmd} ${args.join(" ")} failed:\n${text}`);
  return text;
}

let counter = 0;

/**
 * Starts a throwaway cluster (C locale, so text sorts byte by byte as SQLite's does).
 *
 * @example
 * ```ts
 * await using pg = await startTestCluster();
 * const url = await pg.createDatabase();
 * ```
 * @returns The cluster; dispose it to stop it and remove its files.
 */
export async function startTestCluster(): Promise<TestCluster> {
  const bin = postgresBinDir();
  if (!bin) {
    throw new Error(
      "PostgreSQL is not installed: run `deno task test` (scripts/test_prepare.ts installs Debian's postgresql) or `apt-get install postgresql`",
    );
  }
  const root = await Deno.makeTempDir({ prefix: "fw-pg-" });
  await Deno.chmod(root, 0o755);
  const data = `${root}/data`;
  if (isRoot) await new Deno.Command("chown", { args: ["postgres", root] }).output();
  await sh(`${bin}/initdb`, [
    "-D",
    data,
    "-U",
    "postgres",
    "--auth=trust",
    "--locale=C",
    "--encoding=UTF8",
    "--no-sync",
  ]);
  const port = freePort();
  const ctl = (action: string) =>
    sh(`${bin}/pg_ctl`, [
      "-D",
      data,
      "-l",
      `${root}/log`,
      "-w",
      "-t",
      "60",
      "-m",
      "fast",
      "-o",
      `-p ${port} -k ${root} -c listen_addresses=127.0.0.1 -c fsync=off -c max_connections=200`,
      action,
    ]);
  await ctl("start");
  let running = true;
  const url = `postgres://postgres@127.0.0.1:${port}/postgres`;
  return {
    url,
    port,
    dataDir: data,
    async createDatabase(name = `t${Deno.pid}_${++counter}_${Date.now() % 1e6}`) {
      await sh(`${bin}/psql`, [
        "-h",
        root,
        "-p",
        String(port),
        "-U",
        "postgres",
        "-d",
        "postgres",
        "-c",
        `CREATE DATABASE "${name}"`,
      ]);
      return `postgres://postgres@127.0.0.1:${port}/${name}`;
    },
    async stop() {
      if (!running) return;
      await ctl("stop");
      running = false;
    },
    async start() {
      if (running) return;
      await ctl("start");
      running = true;
    },
    removeSync() {
      if (running) {
        const [command, args] = isRoot
          ? ["runuser", ["-u", "postgres", "--", `${bin}/pg_ctl`]]
          : [`${bin}/pg_ctl`, []];
        new Deno.Command(command, {
          args: [...args, "-D", data, "-m", "immediate", "-w", "stop"],
          stdout: "null",
          stderr: "null",
        }).outputSync();
        running = false;
      }
      Deno.removeSync(root, { recursive: true });
    },
    async [Symbol.asyncDispose]() {
      if (running) await ctl("stop").catch(() => {});
      await Deno.remove(root, { recursive: true }).catch(() => {});
    },
  };
}
