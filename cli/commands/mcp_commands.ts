/**
 * `framework mcp`: the harness's MCP servers, administered locally only (list, add, remove), and the
 * harness itself served as an MCP server over stdio (`serve`).
 *
 * @module
 */

import type { Command } from "commander";
import { verbDescription } from "../verb_table.ts";
import { removeItem } from "../../lib/construct/remove_item.ts";
import { setField } from "../../lib/construct/set_field.ts";
import { badInput } from "../../lib/errors.ts";
import { serveHarnessOverStdio } from "../../lib/runs/mcp_serve.ts";
import { createRunService } from "../../lib/runs/service.ts";
import { loadSpec, resolveHarnessDir } from "../../lib/harness_spec/load.ts";
import { trustGate } from "../../lib/trust/trust_gate.ts";
import { type GlobalOptions, runVerb } from "../output.ts";

function collect(value: string, previous: string[]): string[] {
  return [...previous, value];
}

/**
 * Registers `mcp` and its verbs.
 *
 * @param program The root command.
 */
export function registerMcpCommands(program: Command): void {
  const mcp = program.command("mcp").description(verbDescription("mcp"));
  mcp.command("list")
    .description("List the harness's MCP servers")
    .argument("<dir>", "the harness folder")
    .option("--json", "print the ok-wrapped JSON result")
    .action((dir: string, o: GlobalOptions) =>
      runVerb(o, async () => {
        const loaded = await loadSpec(dir);
        const servers = loaded.spec.mcp_servers ?? [];
        return {
          data: { harness_id: loaded.spec.id, servers },
          text: servers.length
            ? servers.map((s) =>
              `${s.name}  ${s.command ? [s.command, ...(s.args ?? [])].join(" ") : s.url}${
                s.tools ? `  tools: ${s.tools.join(", ")}` : ""
              }`
            ).join("\n")
            : "No MCP servers.",
        };
      })
    );
  mcp.command("add")
    .description("Add an MCP server: a command (stdio) or a URL (Streamable HTTP)")
    .argument("<dir>", "the harness folder")
    .argument("<name>", "the server's name (tools are offered as <name>__<tool>)")
    .option("--command <cmd>", "start this program (stdio)")
    .option("--arg <arg>", "an argument of the command (repeatable)", collect, [])
    .option(
      "--env <KEY=VALUE>",
      "a variable of the server's own environment (repeatable)",
      collect,
      [],
    )
    .option("--url <url>", "a Streamable HTTP server")
    .option("--tool <name>", "allow only this tool (repeatable)", collect, [])
    .option("--timeout <seconds>", "time limit of one call")
    .option("--optional", "when it cannot start, warn and run without it")
    .option("--json", "print the ok-wrapped JSON result")
    .action((
      dir: string,
      name: string,
      o: GlobalOptions & {
        command?: string;
        arg: string[];
        env: string[];
        url?: string;
        tool: string[];
        timeout?: string;
        optional?: boolean;
      },
    ) =>
      runVerb(o, async () => {
        const loaded = await loadSpec(dir);
        const env = Object.fromEntries(o.env.map((kv) => {
          const at = kv.indexOf("=");
          if (at < 1) throw badInput(`--env must be KEY=VALUE, got ${JSON.stringify(kv)}`);
          return [kv.slice(0, at), kv.slice(at + 1)];
        }));
        const server = {
          name,
          ...(o.command !== undefined ? { command: o.command } : {}),
          ...(o.arg.length ? { args: o.arg } : {}),
          ...(o.env.length ? { env } : {}),
          ...(o.url !== undefined ? { url: o.url } : {}),
          ...(o.tool.length ? { tools: o.tool } : {}),
          ...(o.timeout !== undefined ? { timeout_s: Number(o.timeout) } : {}),
          ...(o.optional ? { optional: true } : {}),
        };
        const list = [...(loaded.spec.mcp_servers ?? []), server];
        const r = await setField(loaded.dir, "mcp_servers", list, {
          actor: "cli",
          policy: "local",
        });
        return {
          data: { added: name, spec_version: r.spec_version },
          text: `Added MCP server ${name}`,
        };
      })
    );
  mcp.command("remove")
    .description("Remove an MCP server by name")
    .argument("<dir>", "the harness folder")
    .argument("<name>", "the server's name")
    .option("--json", "print the ok-wrapped JSON result")
    .action((dir: string, name: string, o: GlobalOptions) =>
      runVerb(o, async () => {
        const loaded = await loadSpec(dir);
        const i = (loaded.spec.mcp_servers ?? []).findIndex((s) => s.name === name);
        if (i < 0) throw badInput(`No MCP server named ${JSON.stringify(name)}`);
        const r = await removeItem(loaded.dir, { path: `mcp_servers.${i}` }, {
          actor: "cli",
          policy: "local",
        });
        return { data: { removed: name, spec_version: r.spec_version }, text: `Removed ${name}` };
      })
    );
  mcp.command("serve")
    .description(
      "Serve the harness as an MCP server over stdio: one tool, run, each call a journalled run",
    )
    .argument("<dir>", "the harness folder")
    .option("--approve", "trust the folder if it is not trusted yet")
    .action(async (dir: string, o: { approve?: boolean }) => {
      const trusted = await trustGate(await resolveHarnessDir(dir), { approve: !!o.approve });
      await serveHarnessOverStdio(createRunService(), trusted);
      Deno.exit(0);
    });
}
