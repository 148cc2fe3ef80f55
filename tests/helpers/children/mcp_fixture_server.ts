/**
 * A small real stdio MCP server for the hardening tests, written without the SDK or the framework
 * (newline-delimited JSON-RPC as the MCP stdio transport specifies), so the framework's client is
 * tested against bytes it does not produce itself.
 *
 * Tools:
 * - `echo {text}`: answers the text.
 * - `flood`: writes 12 MiB without a newline in 64 KiB writes, calling `$HOOK/flood-mid` halfway
 *   (and waiting for its answer) and `$HOOK/flood-end` at the end, then stays silent.
 * - `stall`: writes 6 MiB without a newline (under the 8 MiB cap), then stays silent.
 *
 * Environment: `START_LOG` (a file that gets one line per start), `CHILD_PID_FILE` (spawn
 * `sleep 1000`, itself deaf to SIGTERM, and write its pid there), `IGNORE_SIGTERM=1` (SIGTERM does
 * nothing, and the server stays up after its stdin closes), `HOOK` (the test's URL for the flood's
 * hooks).
 *
 * Usage: deno run -A mcp_fixture_server.ts
 */

const env = (name: string) => Deno.env.get(name) ?? "";
const encoder = new TextEncoder();

if (env("IGNORE_SIGTERM") === "1") Deno.addSignalListener("SIGTERM", () => {});
if (env("START_LOG")) {
  await Deno.writeTextFile(env("START_LOG"), `${Deno.pid}\n`, { append: true });
}
if (env("CHILD_PID_FILE")) {
  // `sleep 1000` with SIGTERM ignored too (an ignored signal stays ignored across exec).
  const child = new Deno.Command("sh", {
    args: ["-c", "trap '' TERM; exec sleep 1000"],
    stdin: "null",
    stdout: "null",
    stderr: "null",
  }).spawn();
  await Deno.writeTextFile(env("CHILD_PID_FILE"), String(child.pid));
}

async function write(bytes: Uint8Array): Promise<void> {
  let done = 0;
  while (done < bytes.length) done += await Deno.stdout.write(bytes.subarray(done));
}

async function send(message: unknown): Promise<void> {
  await write(encoder.encode(JSON.stringify(message) + "\n"));
}

const TOOLS = ["echo", "flood", "stall"].map((name) => ({
  name,
  description: `The fixture's ${name}`,
  inputSchema: { type: "object", properties: { text: { type: "string" } } },
}));

async function writeWithoutNewline(mib: number): Promise<void> {
  const block = encoder.encode("x".repeat(64 * 1024));
  for (let i = 0; i < mib * 16; i++) await write(block);
}

async function call(id: unknown, name: string, args: Record<string, unknown>): Promise<void> {
  if (name === "echo") {
    await send({ jsonrpc: "2.0", id, result: { content: [{ type: "text", text: args.text }] } });
  } else if (name === "flood") {
    await writeWithoutNewline(6);
    await (await fetch(`${env("HOOK")}/flood-mid`)).body?.cancel();
    await writeWithoutNewline(6);
    await (await fetch(`${env("HOOK")}/flood-end`)).body?.cancel();
  } else if (name === "stall") {
    await writeWithoutNewline(6);
  }
}

const decoder = new TextDecoder();
let buffer = "";
for await (const chunk of Deno.stdin.readable) {
  buffer += decoder.decode(chunk, { stream: true });
  let nl: number;
  while ((nl = buffer.indexOf("\n")) >= 0) {
    const line = buffer.slice(0, nl).trim();
    buffer = buffer.slice(nl + 1);
    if (!line) continue;
    const message = JSON.parse(line);
    if (message.id === undefined) continue; // a notification
    if (message.method === "initialize") {
      await send({
        jsonrpc: "2.0",
        id: message.id,
        result: {
          protocolVersion: message.params.protocolVersion,
          capabilities: { tools: {} },
          serverInfo: { name: "fixture", version: "1" },
        },
      });
    } else if (message.method === "tools/list") {
      await send({ jsonrpc: "2.0", id: message.id, result: { tools: TOOLS } });
    } else if (message.method === "tools/call") {
      // Not awaited: a flood or a stall must not keep the server from reading.
      call(message.id, message.params.name, message.params.arguments ?? {}).catch(() => {});
    } else {
      await send({ jsonrpc: "2.0", id: message.id, result: {} });
    }
  }
}

// Deaf to SIGTERM and to the end of its input: only SIGKILL ends it.
if (env("IGNORE_SIGTERM") === "1") setInterval(() => {}, 60_000);
