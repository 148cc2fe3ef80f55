/**
 * `framework workbench`: the chat-first development UI with its bundled copilot, on one URL.
 *
 * @module
 */

import type { Command } from "commander";
import { verbDescription } from "../verb_table.ts";
import { badInput } from "../../lib/errors.ts";
import { wholeOption } from "../../lib/whole_number.ts";
import { okEnvelope } from "../../lib/envelope.ts";
import { SHUTDOWN_GRACE_MS, startWorkbench } from "../../routes/workbench_server.ts";
import { reportError, writeErr, writeOut } from "../output.ts";

function collect(value: string, previous: string[]): string[] {
  return [...previous, value];
}

/**
 * Registers `workbench`.
 *
 * @param program The root command.
 */
export function registerWorkbenchCommand(program: Command): void {
  program.command("workbench")
    .description(verbDescription("workbench"))
    .option(
      "--host <host>",
      "address to listen on (anything but loopback needs the printed access token)",
      "127.0.0.1",
    )
    .option("--port <port>", "port (0 picks a free one)", "8770")
    .option("--dir <dir>", "offer one more harness folder (repeatable)", collect, [])
    .option(
      "--scan-dir <dir>",
      "discover harnesses under a folder (repeatable; ./harnesses is always scanned)",
      collect,
      [],
    )
    .option("--harnesses-dir <dir>", "where new harnesses are created", "./harnesses")
    .option("--json", "print one JSON line with the URL once listening")
    .action(
      async (
        o: {
          host: string;
          port: string;
          dir: string[];
          scanDir: string[];
          harnessesDir: string;
          json?: boolean;
        },
      ) => {
        try {
          const port = wholeOption(o.port, { name: "--port", min: 0, max: 65535 });
          let wb;
          try {
            wb = await startWorkbench({
              host: o.host,
              port,
              dirs: o.dir,
              scanDirs: o.scanDir,
              harnessesDir: o.harnessesDir,
              warn: writeErr,
            });
          } catch (err) {
            if (err instanceof Deno.errors.AddrInUse) {
              throw badInput(`${o.host}:${port} is in use; pick another --port`);
            }
            throw err;
          }
          const info = {
            url: wb.url,
            open_url: wb.openUrl,
            api_url: wb.apiUrl,
            copilot: wb.copilotModel
              ? `${wb.copilotModel.model.provider}:${wb.copilotModel.model.name ?? ""}`
              : null,
          };
          if (o.json) writeOut(JSON.stringify(okEnvelope(info)));
          else {
            writeOut(`Workbench: ${wb.openUrl}`);
            writeOut(
              info.copilot
                ? `Copilot model: ${info.copilot}`
                : "Copilot: no model configured (set FRAMEWORK_COPILOT_MODEL; see docs/workbench.md)",
            );
          }
          // Running runs get a grace period to finish, then are stopped (each ends `stopped`, its
          // journal closed); a second signal stops them at once.
          let signals = 0;
          const stop = async () => {
            const first = ++signals === 1;
            const live = wb.activeRuns();
            if (live && first) {
              writeErr(
                `Shutting down: ${live} running run${live === 1 ? "" : "s"} get${
                  live === 1 ? "s" : ""
                } up to ${SHUTDOWN_GRACE_MS / 1000} s to finish (press Ctrl-C again to stop ${
                  live === 1 ? "it" : "them"
                } now).`,
              );
            } else if (live) writeErr("Stopping the running runs now.");
            await wb.close(first ? SHUTDOWN_GRACE_MS : 0);
            Deno.exit(0);
          };
          Deno.addSignalListener("SIGINT", stop);
          Deno.addSignalListener("SIGTERM", stop);
          await new Promise(() => {});
        } catch (err) {
          Deno.exit(reportError(err, !!o.json));
        }
      },
    );
}
