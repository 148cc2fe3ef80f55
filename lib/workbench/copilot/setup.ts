/**
 * The bundled copilot harness: its working copy in `<home>/workbench/copilot/` (written from the
 * bundle, validated and trusted at start) and its model, from `FRAMEWORK_COPILOT_MODEL` or the first
 * provider key found.
 *
 * @module
 */

import { join } from "node:path";
import { parse as parseYaml } from "yaml";
import { badInput, FrameworkError } from "../../errors.ts";
import { writeFileAtomic } from "../../fs/atomic_write.ts";
import { specPath, workbenchDir } from "../../paths.ts";
import { type LoadedSpec, loadSpec } from "../../harness_spec/load.ts";
import { modelSchema, type ModelSpec } from "../../harness_spec/schema.ts";
import { type TrustedFolder, trustGate } from "../../trust/trust_gate.ts";
import { slashUsages } from "../slash_commands.ts";
import bundled from "./harness.yaml" with { type: "text" };

/** The copilot's working copy folder. */
export function copilotDir(): string {
  return join(workbenchDir(), "copilot");
}

/** The copilot harness, ready to run. */
export interface Copilot {
  /** Its spec (the model is set per launch). */
  spec: LoadedSpec;
  /** The trust gate's proof for its working copy (the workbench trusts its own copilot). */
  trusted: TrustedFolder;
}

/**
 * Writes the bundled copilot into its working copy (when it differs), trusts and validates it.
 *
 * @returns The loaded copilot and its trust proof.
 */
export async function setupCopilot(): Promise<Copilot> {
  await Deno.mkdir(copilotDir(), { recursive: true });
  const dir = await Deno.realPath(copilotDir());
  const path = specPath(dir);
  const current = await Deno.readTextFile(path).catch(() => undefined);
  if (current !== bundled) await writeFileAtomic(path, bundled);
  const trusted = await trustGate(dir, { approve: true });
  try {
    return { spec: await loadSpec(dir), trusted };
  } catch (err) {
    throw new FrameworkError(
      "internal",
      `The bundled copilot harness is invalid: ${(err as Error).message}`,
    );
  }
}

/** Where the copilot's model came from. */
export interface CopilotModel {
  model: ModelSpec;
  /** `FRAMEWORK_COPILOT_MODEL` or the key found. */
  source: string;
}

/**
 * The copilot's model: `FRAMEWORK_COPILOT_MODEL` (`openai:NAME`, `anthropic:NAME`,
 * `openai-compatible:NAME@BASE_URL` or with `FRAMEWORK_COPILOT_BASE_URL`, `scripted:/path/to/script.yaml`),
 * else `openai:gpt-4.1-mini` when `OPENAI_API_KEY` is set, else `anthropic:claude-sonnet-4-5` when
 * `ANTHROPIC_API_KEY` is set, else none.
 *
 * @param env Reads a variable (default: the process environment).
 * @returns The model, or undefined when none is configured.
 */
export function resolveCopilotModel(
  env: (name: string) => string | undefined = (n) => Deno.env.get(n),
): CopilotModel | undefined {
  const raw = env("FRAMEWORK_COPILOT_MODEL")?.trim();
  if (raw) {
    const colon = raw.indexOf(":");
    if (colon <= 0) {
      throw badInput(
        `FRAMEWORK_COPILOT_MODEL must look like openai:gpt-4.1-mini, got ${JSON.stringify(raw)}`,
      );
    }
    const provider = raw.slice(0, colon);
    let name = raw.slice(colon + 1);
    let model: Record<string, unknown>;
    if (provider === "scripted") {
      let script: unknown;
      try {
        script = parseYaml(Deno.readTextFileSync(name));
      } catch (err) {
        throw badInput(
          `FRAMEWORK_COPILOT_MODEL names a script that cannot be read: ${(err as Error).message}`,
        );
      }
      model = { provider: "scripted", name: "copilot-script", ...(script as object) };
    } else {
      let base_url = env("FRAMEWORK_COPILOT_BASE_URL");
      const at = name.indexOf("@");
      if (at > 0) {
        base_url = name.slice(at + 1);
        name = name.slice(0, at);
      }
      model = { provider, name, ...(base_url ? { base_url } : {}) };
    }
    const parsed = modelSchema.safeParse(model);
    if (!parsed.success) {
      const first = parsed.error.issues[0]!;
      throw badInput(
        `FRAMEWORK_COPILOT_MODEL is not usable: ${
          first.path.join(".") || "model"
        }: ${first.message}`,
      );
    }
    return { model: parsed.data, source: "FRAMEWORK_COPILOT_MODEL" };
  }
  if (env("OPENAI_API_KEY")) {
    return { model: { provider: "openai", name: "gpt-4.1-mini" }, source: "OPENAI_API_KEY" };
  }
  if (env("ANTHROPIC_API_KEY")) {
    return {
      model: { provider: "anthropic", name: "claude-sonnet-4-5" },
      source: "ANTHROPIC_API_KEY",
    };
  }
  return undefined;
}

/** What the chat answers when no copilot model is configured. */
export const COPILOT_SETUP_HELP = [
  "The copilot has no model yet, so it cannot answer. Everything else in the workbench works.",
  "",
  "To enable it, start the workbench with one of:",
  "- `FRAMEWORK_COPILOT_MODEL=openai:gpt-4.1-mini` and `OPENAI_API_KEY` set",
  "- `FRAMEWORK_COPILOT_MODEL=anthropic:claude-sonnet-4-5` and `ANTHROPIC_API_KEY` set",
  "- `FRAMEWORK_COPILOT_MODEL=openai-compatible:llama3.1@http://127.0.0.1:11434/v1` for Ollama, vLLM, LM Studio, llama.cpp",
  "Without FRAMEWORK_COPILOT_MODEL, the first of OPENAI_API_KEY or ANTHROPIC_API_KEY found is used.",
  "",
  `Meanwhile, slash commands call the copilot's tools with no model: ${slashUsages()}; \`/help\` lists them.`,
].join("\n");
