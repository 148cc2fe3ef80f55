/**
 * `framework control-plane <dir>`: serve one harness over HTTP. Trust is checked once, before the
 * socket binds; a non-loopback bind prints a loud warning; SIGINT/SIGTERM stop accepting, give running
 * runs a bounded time to finish, and exit.
 *
 * @module
 */

import { openHive } from "../../lib/hive/open.ts";
import type { Command } from "commander";
import { verbDescription } from "../verb_table.ts";
import { badInput } from "../../lib/errors.ts";
import { wholeOption } from "../../lib/whole_number.ts";
import { okEnvelope } from "../../lib/envelope.ts";
import { DEFAULT_MAX_BODY_BYTES } from "../../lib/http/body.ts";
import { exposureWarning, isLoopbackHost } from "../../lib/http/net.ts";
import { readKeyStore } from "../../lib/keys/key_store.ts";
import { authorizedKeysPath } from "../../lib/paths.ts";
import { loadSpec, resolveHarnessDir } from "../../lib/harness_spec/load.ts";
import { trustGate } from "../../lib/trust/trust_gate.ts";
import { createControlPlane } from "../../routes/control_plane.ts";

import { reportError, writeErr, writeOut } from "../output.ts";

interface Options {
  host: string;
  port: string;
  maxConcurrentRuns: string;
  maxQueuedRuns: string;
  maxWaitingRuns: string;
  maxBodyBytes: string;
  authorizedKeys?: string;
  approve?: boolean;
  json?: boolean;
}

/** How long running runs may finish after SIGINT/SIGTERM. */
const SHUTDOWN_GRACE_MS = 30_000;

/**
 * Registers `control-plane`.
 *
 * @param program The root command.
 */
export function registerControlPlaneCommand(program: Command): void {
  program.command("control-plane")
    .description(verbDescription("control-plane"))
    .argument("<dir>", "the harness folder")
    .option(
      "--host <host>",
      "address to bind (anything but loopback prints a warning)",
      "127.0.0.1",
    )
    .option("--port <port>", "port to bind (0 picks a free one)", "8420")
    .option("--max-concurrent-runs <n>", "runs at once", "1")
    .option("--max-queued-runs <n>", "runs waiting for a slot; beyond that /run answers 503", "4")
    .option(
      "--max-waiting-runs <n>",
      "runs waiting for a person's decision (without a slot); beyond that a request is denied at once",
      "16",
    )
    .option("--max-body-bytes <n>", "largest request body", String(DEFAULT_MAX_BODY_BYTES))
    .option(
      "--authorized-keys <file>",
      "the key store (default <dir>/.framework/authorized_keys.json, or $FRAMEWORK_AUTHORIZED_KEYS)",
    )
    .option("--approve", "trust the folder if it is not trusted yet")
    .option("--json", "print one JSON line with the URL once listening")
    .action(async (dir: string, o: Options) => {
      try {
        const port = wholeOption(o.port, { name: "--port", min: 0, max: 65535 });
        const maxConcurrentRuns = wholeOption(o.maxConcurrentRuns, {
          name: "--max-concurrent-runs",
          min: 1,
        });
        const maxQueuedRuns = wholeOption(o.maxQueuedRuns, { name: "--max-queued-runs", min: 0 });
        const maxWaitingRuns = wholeOption(o.maxWaitingRuns, {
          name: "--max-waiting-runs",
          min: 0,
        });
        const maxBodyBytes = wholeOption(o.maxBodyBytes, { name: "--max-body-bytes", min: 1 });
        const real = await resolveHarnessDir(dir);
        // Trust is decided once, here, before anything binds.
        const trusted = await trustGate(real, { approve: !!o.approve });
        const loaded = await loadSpec(real);
        // The hive answers before anything binds: a database out of reach is refused, named.
        openHive();
        const storePath = authorizedKeysPath(real, o.authorizedKeys);
        const keyCount = (await readKeyStore(storePath).catch(() => [])).filter((k) =>
          k.revoked_at === null
        ).length;
        const plane = await createControlPlane({
          trusted,
          storePath,
          maxConcurrentRuns,
          maxQueuedRuns,
          maxWaitingRuns,
          maxBodyBytes,
        });
        let server: Deno.HttpServer<Deno.NetAddr>;
        try {
          server = Deno.serve({
            hostname: o.host,
            port,
            onListen: (addr) => {
              const url = `http://${
                addr.hostname.includes(":") ? `[${addr.hostname}]` : addr.hostname
              }:${addr.port}`;
              if (!isLoopbackHost(o.host)) {
                writeErr(exposureWarning("the control plane", o.host, addr.port));
              }
              const info = {
                url,
                harness_id: loaded.spec.id,
                harness_dir: real,
                key_store: storePath,
                active_keys: keyCount,
              };
              if (o.json) writeOut(JSON.stringify(okEnvelope(info)));
              else {
                writeOut(`Control plane for ${loaded.spec.id} listening on ${url}`);
                writeOut(
                  `Key store: ${storePath} (${keyCount} active key${keyCount === 1 ? "" : "s"})`,
                );
                if (!keyCount) {
                  writeOut(
                    "No keys yet: authorize one with `framework keys authorize --harness <dir> --scope run -- <name> <public-key>`",
                  );
                }
              }
            },
          }, plane.fetch);
        } catch (err) {
          if (err instanceof Deno.errors.AddrInUse) {
            throw badInput(`${o.host}:${port} is in use; pick another --port`);
          }
          if (err instanceof Deno.errors.AddrNotAvailable) {
            throw badInput(`Cannot bind ${o.host}: the address is not available here`);
          }
          throw err;
        }
        let stopping = false;
        const stop = async () => {
          if (stopping) return;
          stopping = true;
          writeErr("Shutting down: no new requests; running runs get up to 30 s to finish.");
          const closing = plane.close(SHUTDOWN_GRACE_MS);
          await Promise.race([
            server.shutdown(),
            new Promise((r) => setTimeout(r, SHUTDOWN_GRACE_MS + 5000)),
          ]);
          await closing;
          Deno.exit(0);
        };
        Deno.addSignalListener("SIGINT", stop);
        Deno.addSignalListener("SIGTERM", stop);
        await server.finished;
      } catch (err) {
        Deno.exit(reportError(err, !!o.json));
      }
    });
}
