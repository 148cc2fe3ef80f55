/**
 * The builtin tools: `file_read`, `file_write`, `list_files` (paths relative to the harness folder,
 * through the one sensitive-path check) and `load_skill` (progressive disclosure of skills).
 *
 * @module
 */

import { dirname } from "node:path";
import { FrameworkError } from "../errors.ts";
import { writeFileAtomic } from "../fs/atomic_write.ts";
import { readCheckedStart, resolveSafePath } from "../fs/safe_path.ts";
import { BUILTINS } from "../harness_spec/builtins.ts";
import { sensitiveName } from "../paths.ts";
import { stringArg, type Tool, type ToolContext, ToolError } from "./tool.ts";

/** A builtin tool: its result is always plain text. */
export type BuiltinTool = Omit<Tool, "run"> & {
  run(args: Record<string, unknown>, ctx: ToolContext): Promise<string>;
};

const DEFAULT_MAX_BYTES = 256 * 1024;
const DEFAULT_MAX_ENTRIES = 500;
/**
 * A folder whose own size (the bytes of its entry table: some hundreds of names) is at most this is
 * read on the event loop: a thread-pool round trip costs more than reading it. A larger one is read
 * on the pool, so a huge folder never holds the loop.
 */
const SMALL_FOLDER_BYTES = 32 * 1024;

/** A folder's entries, read synchronously when the folder is small. */
async function folderEntries(path: string): Promise<Deno.DirEntry[]> {
  return Deno.statSync(path).size <= SMALL_FOLDER_BYTES
    ? [...Deno.readDirSync(path)]
    : await Array.fromAsync(Deno.readDir(path));
}

async function safe(ctx: ToolContext, path: string, write: boolean) {
  try {
    return await resolveSafePath(ctx.harnessDir, path, {
      traceDirs: ctx.traceDirs,
      protectSpec: write,
    });
  } catch (err) {
    if (err instanceof FrameworkError) throw new ToolError("refused", err.message);
    throw err;
  }
}

function pathSchema(description: string) {
  return { type: "string", description };
}

function fileRead(options: Record<string, unknown>): BuiltinTool {
  const maxBytes = (options.max_bytes as number | undefined) ?? DEFAULT_MAX_BYTES;
  return {
    source: "builtin",
    spec: {
      name: "file_read",
      description: BUILTINS.tool.file_read!.description,
      parameters: {
        type: "object",
        properties: { path: pathSchema("Path relative to the harness folder") },
        required: ["path"],
        additionalProperties: false,
      },
    },
    async run(args, ctx) {
      const target = await safe(ctx, stringArg(args, "path"), false);
      let read: { bytes: Uint8Array; size: number };
      try {
        if (Deno.statSync(target.absolute).isDirectory) {
          throw new ToolError("is_directory", `${target.relative} is a folder; use list_files`);
        }
        // The file read is the file checked (a name swapped for a link meanwhile is refused), and
        // no more of it is read than is returned.
        read = await readCheckedStart(target.absolute, target.relative, maxBytes);
      } catch (err) {
        if (err instanceof Deno.errors.NotFound) {
          throw new ToolError("not_found", `No file at ${target.relative}`);
        }
        if (err instanceof FrameworkError) throw new ToolError("refused", err.message);
        throw err;
      }
      const text = new TextDecoder().decode(read.bytes);
      return read.size > read.bytes.length && read.bytes.length === maxBytes
        ? `${text}\n[truncated: ${read.size - maxBytes} more bytes]`
        : text;
    },
  };
}

function fileWrite(options: Record<string, unknown>): BuiltinTool {
  const maxBytes = (options.max_bytes as number | undefined) ?? DEFAULT_MAX_BYTES;
  return {
    source: "builtin",
    spec: {
      name: "file_write",
      description: BUILTINS.tool.file_write!.description,
      parameters: {
        type: "object",
        properties: {
          path: pathSchema("Path relative to the harness folder"),
          content: { type: "string", description: "The new contents" },
        },
        required: ["path", "content"],
        additionalProperties: false,
      },
    },
    async run(args, ctx) {
      const target = await safe(ctx, stringArg(args, "path"), true);
      const content = stringArg(args, "content");
      const bytes = new TextEncoder().encode(content);
      if (bytes.length > maxBytes) {
        throw new ToolError(
          "too_large",
          `Content is ${bytes.length} bytes; the limit is ${maxBytes}`,
        );
      }
      await Deno.mkdir(dirname(target.absolute), { recursive: true });
      await writeFileAtomic(target.absolute, bytes);
      return `Wrote ${bytes.length} bytes to ${target.relative}`;
    },
  };
}

function listFiles(options: Record<string, unknown>): BuiltinTool {
  const maxEntries = (options.max_entries as number | undefined) ?? DEFAULT_MAX_ENTRIES;
  return {
    source: "builtin",
    spec: {
      name: "list_files",
      description: BUILTINS.tool.list_files!.description,
      parameters: {
        type: "object",
        properties: {
          path: pathSchema("Folder relative to the harness folder (default: the harness folder)"),
        },
        additionalProperties: false,
      },
    },
    async run(args, ctx) {
      const target = await safe(
        ctx,
        args.path === undefined ? "." : stringArg(args, "path"),
        false,
      );
      const names: string[] = [];
      try {
        for (const e of await folderEntries(target.absolute)) {
          if (sensitiveName(e.name)) continue;
          names.push(e.isDirectory ? `${e.name}/` : e.name);
        }
      } catch (err) {
        if (err instanceof Deno.errors.NotFound) {
          throw new ToolError("not_found", `No folder at ${target.relative}`);
        }
        if (err instanceof Deno.errors.NotADirectory) {
          throw new ToolError("not_a_directory", `${target.relative} is a file`);
        }
        throw err;
      }
      names.sort();
      const shown = names.slice(0, maxEntries);
      const more = names.length > shown.length ? `\n[${names.length - shown.length} more]` : "";
      return shown.length ? shown.join("\n") + more : "(empty)";
    },
  };
}

function loadSkill(): BuiltinTool {
  return {
    source: "builtin",
    spec: {
      name: "load_skill",
      description: BUILTINS.tool.load_skill!.description,
      parameters: {
        type: "object",
        properties: { name: { type: "string", description: "The skill's name" } },
        required: ["name"],
        additionalProperties: false,
      },
    },
    run(args, ctx) {
      const name = stringArg(args, "name");
      const skill = ctx.spec.skills?.find((s) => s.name === name);
      if (!skill) {
        const names = (ctx.spec.skills ?? []).map((s) => s.name).join(", ") || "none";
        return Promise.reject(
          new ToolError("not_found", `No skill named ${JSON.stringify(name)}; skills: ${names}`),
        );
      }
      return Promise.resolve(skill.instructions);
    },
  };
}

function switchPlaybook(): BuiltinTool {
  return {
    source: "builtin",
    spec: {
      name: "switch_playbook",
      description: BUILTINS.tool.switch_playbook!.description,
      parameters: {
        type: "object",
        properties: { name: { type: "string", description: "The playbook to switch to" } },
        required: ["name"],
        additionalProperties: false,
      },
    },
    run(args, ctx) {
      const name = stringArg(args, "name");
      if (!ctx.switchPlaybook) {
        return Promise.reject(new ToolError("unavailable", "Modes can only change during a run"));
      }
      try {
        return Promise.resolve(ctx.switchPlaybook(name));
      } catch (err) {
        return Promise.reject(new ToolError("invalid_arguments", (err as Error).message));
      }
    },
  };
}

function delegate(): BuiltinTool {
  return {
    source: "builtin",
    // The child run is bounded by its own limits and cost cap, not by the tool's time limit.
    timeout_s: 24 * 3600,
    spec: {
      name: "delegate",
      description: BUILTINS.tool.delegate!.description,
      parameters: {
        type: "object",
        properties: {
          task: { type: "string", description: "What the peer should do, on its own" },
          peer: {
            type: "string",
            description: "A peer's name, or a remote peer's URL (default: the fittest eligible)",
          },
        },
        required: ["task"],
        additionalProperties: false,
      },
    },
    async run(args, ctx) {
      const task = stringArg(args, "task");
      const peer = args.peer === undefined ? undefined : stringArg(args, "peer");
      if (!ctx.delegate) {
        throw new ToolError("unavailable", "This harness has no peers to delegate to");
      }
      return await ctx.delegate(task, peer);
    },
  };
}

/** Factories of the builtin tools by name. */
export const BUILTIN_TOOLS: Readonly<
  Record<string, (options: Record<string, unknown>) => BuiltinTool>
> = {
  file_read: fileRead,
  file_write: fileWrite,
  list_files: listFiles,
  load_skill: loadSkill,
  switch_playbook: switchPlaybook,
  delegate,
};
