/**
 * `framework mcp`: servers added, listed and removed locally (and never over HTTP), and a harness
 * served as an MCP server over stdio, answering `tools/list` and a `run` call from the SDK's client —
 * each call an ordinary journalled run.
 *
 * @module
 */

import assert from "node:assert/strict";
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { stdioTransport } from "../../lib/tools/mcp_stdio.ts";
import { CLI_PATH, runCli } from "../helpers/cli.ts";
import { jsonError, jsonOk } from "../helpers/cli_assert.ts";
import { memberToken, startControlPlane } from "../helpers/control_plane.ts";
import { scripted, writeHarness } from "../helpers/harness.ts";
import { tempDir } from "../helpers/temp.ts";

Deno.test("framework mcp: list, add, remove locally; 403 over HTTP; serve answers an MCP client", async (t) => {
  await using home = await tempDir("fw-mcp-home-");
  await using cwd = await tempDir("fw-mcp-cwd-");
  const cli = (args: string[]) => runCli(args, { home: home.path, cwd: cwd.path });
  const dir = await writeHarness(cwd.path, "served", {
    description: "Says hello.",
    model: scripted([{ text: "Hello over MCP." }]),
  });

  await t.step("add, list and remove are local construction", async () => {
    jsonOk(
      await cli([
        "mcp",
        "add",
        "served",
        "files",
        "--command",
        "npx",
        "--arg",
        "-y",
        "--arg",
        "some-server",
        "--env",
        "ROOT=/data",
        "--tool",
        "read",
        "--timeout",
        "5",
        "--json",
      ]),
    );
    const listed = jsonOk(await cli(["mcp", "list", "served", "--json"]));
    assert.deepEqual(listed.servers, [{
      name: "files",
      command: "npx",
      args: ["-y", "some-server"],
      env: { ROOT: "/data" },
      tools: ["read"],
      timeout_s: 5,
    }]);
    jsonError(
      await cli(["mcp", "add", "served", "bad", "--env", "NOEQUALS", "--json"]),
      "bad_input",
      2,
    );
    jsonOk(await cli(["mcp", "remove", "served", "files", "--json"]));
    assert.deepEqual(jsonOk(await cli(["mcp", "list", "served", "--json"])).servers, []);
  });

  await t.step("over HTTP every change of mcp_servers is refused", async () => {
    const { token } = await memberToken(dir, home.path, "admin", ["*"]);
    await using plane = await startControlPlane(dir, {
      home: home.path,
      env: { FRAMEWORK_AUTHORIZED_KEYS: "" },
    });
    for (
      const body of [
        { path: "mcp_servers", value: [{ name: "x", command: "sh" }] },
        { path: "mcp_servers.0", value: { name: "x", url: "http://127.0.0.1:9" } },
      ]
    ) {
      const res = await fetch(`${plane.url}/set`, {
        method: "POST",
        headers: { authorization: `Bearer ${token}`, "content-type": "application/json" },
        body: JSON.stringify(body),
      });
      assert.equal(res.status, 403, await res.text());
    }
  });

  await t.step("mcp serve answers tools/list and a run call", async () => {
    const denoDir = JSON.parse(
      new TextDecoder().decode(
        (await new Deno.Command(Deno.execPath(), { args: ["info", "--json"] }).output()).stdout,
      ),
    ).denoDir;
    const transport = stdioTransport({
      command: Deno.execPath(),
      args: ["run", "-A", "--quiet", CLI_PATH, "mcp", "serve", dir, "--approve"],
      env: {
        PATH: Deno.env.get("PATH") ?? "",
        DENO_DIR: denoDir,
        FRAMEWORK_HOME: home.path,
        NO_COLOR: "1",
      },
      cwd: cwd.path,
    });
    const client = new Client({ name: "test", version: "1" });
    try {
      await client.connect(transport, { timeout: 60_000 });
      const tools = (await client.listTools()).tools;
      assert.deepEqual(tools.map((x: { name: string }) => x.name), ["run"]);
      assert.match(String(tools[0]!.description), /Says hello/);
      const result = await client.callTool({ name: "run", arguments: { input: "hi" } });
      assert.equal(result.isError, false);
      assert.deepEqual(result.content, [{ type: "text", text: "Hello over MCP." }]);
      const structured = result.structuredContent as { run_id: string; status: string };
      assert.equal(structured.status, "success");
      const trace = jsonOk(await cli(["trace", structured.run_id, "--verify", "--json"]));
      assert.equal(trace.integrity.ok, true, "each call is an ordinary journalled run");
    } finally {
      await client.close();
    }
  });
});
