/**
 * `initHarness`: create a harness folder from a template. A failed creation removes everything it
 * created, so no half-made folder is left behind.
 *
 * @module
 */

import { own } from "../own.ts";
import { basename, dirname, join, resolve } from "node:path";
import { badInput } from "../errors.ts";
import { harnessStateDir, SPEC_FILE_NAME, specPath } from "../paths.ts";
import { invalidSpecError, parseSpecText, specIsValid } from "../harness_spec/load.ts";
import { isSlug, SLUG_RULE } from "../harness_spec/schema.ts";
import { specVersion } from "../harness_spec/version.ts";
import { setInText } from "../harness_spec/yaml_edit.ts";
import { TEMPLATES } from "../templates/templates.ts";
import { appendConstructionLog } from "./construction_log.ts";
import { recordVersion } from "./mutate.ts";
import { pathExists } from "../fs/exists.ts";

/** Options of {@link initHarness}. */
export interface InitOptions {
  /** Template name (default `hello`). */
  template?: string;
  /** Harness id (default: the folder name, made a slug). */
  id?: string;
  /** Display name (default: the template's). */
  name?: string;
  /** Construction-log actor (default `cli`). */
  actor?: string;
}

/** The result of {@link initHarness}. */
export interface InitResult {
  dir: string;
  id: string;
  template: string;
  files: string[];
  spec_version: string;
}

/**
 * Turns a folder name into a slug id: `My Bot_2` gives `my-bot-2`.
 *
 * @param name The folder name.
 * @returns The slug (may be empty).
 */
export function slugify(name: string): string {
  return name.toLowerCase().replace(/[^a-z0-9]+/g, "-").replace(/^-+|-+$/g, "");
}

/**
 * A display name from a slug id: `my-bot` gives `My bot`.
 *
 * @param id The id.
 * @returns The name.
 */
export function nameFromId(id: string): string {
  const words = id.split("-").join(" ");
  return words.charAt(0).toUpperCase() + words.slice(1);
}

/**
 * Creates a harness folder from a template.
 *
 * @example
 * ```ts
 * await initHarness("./harnesses/hello");
 * ```
 * @param dir The new harness folder (created if missing; must not already hold a harness.yaml).
 * @param options Template, id, name.
 * @returns The folder, id, files written and spec version.
 */
export async function initHarness(dir: string, options: InitOptions = {}): Promise<InitResult> {
  const templateName = options.template ?? "hello";
  const template = own(TEMPLATES, templateName);
  if (!template) {
    throw badInput(
      `Unknown template ${JSON.stringify(templateName)}: available templates are ${
        Object.keys(TEMPLATES).join(", ")
      }`,
    );
  }
  const target = resolve(dir);
  const id = options.id ?? slugify(basename(target));
  if (!isSlug(id)) {
    // An id made from the folder's name can be chosen instead; one that was given is just wrong.
    const hint = options.id === undefined ? "; choose one with --id" : "";
    throw badInput(`Cannot use ${JSON.stringify(id)} as a harness id: ${SLUG_RULE}${hint}`, { id });
  }
  let spec = setInText(template.files[SPEC_FILE_NAME]!, ["id"], id);
  // A new harness is named after its id unless a name is given (not after its template).
  spec = setInText(spec, ["name"], options.name || nameFromId(id));
  const parsed = parseSpecText(spec);
  if (!specIsValid(parsed)) {
    throw invalidSpecError(parsed.issues, "Cannot create the harness");
  }

  const existed = await pathExists(target);
  if (existed && !(await Deno.stat(target)).isDirectory) {
    throw badInput(`Cannot create a harness at ${JSON.stringify(dir)}: a file is in the way`);
  }
  if (await pathExists(specPath(target))) {
    throw badInput(
      `${JSON.stringify(dir)} already holds a harness.yaml; refusing to overwrite it`,
      { dir },
    );
  }
  const written: string[] = [];
  const createdDirs: string[] = [];
  const stateExisted = await pathExists(harnessStateDir(target));
  try {
    await mkdirTracked(target, createdDirs);
    for (const [rel, content] of Object.entries(template.files)) {
      const file = join(target, rel);
      await mkdirTracked(dirname(file), createdDirs);
      const text = rel === "harness.yaml" ? spec : content;
      await Deno.writeTextFile(file, text, { createNew: true });
      written.push(file);
    }
    const real = await Deno.realPath(target);
    const version = specVersion(parsed.value);
    await appendConstructionLog(real, {
      actor: options.actor ?? "cli",
      op: "init",
      path: "",
      old: null,
      new: templateName,
    });
    recordVersion(real, parsed, version, "init");
    return {
      dir: real,
      id,
      template: templateName,
      files: Object.keys(template.files),
      spec_version: version,
    };
  } catch (err) {
    // Undo: the top-most folder this call created goes whole; otherwise only what it wrote.
    if (createdDirs.length && !existed) {
      await Deno.remove(createdDirs[0]!, { recursive: true }).catch(() => {});
    } else {
      for (const file of written.reverse()) await Deno.remove(file).catch(() => {});
      for (const d of createdDirs.reverse()) await Deno.remove(d).catch(() => {});
      if (!stateExisted) {
        await Deno.remove(harnessStateDir(target), { recursive: true }).catch(() => {});
      }
    }
    throw err;
  }
}

/** Creates a folder and its missing parents, remembering which ones it created. */
async function mkdirTracked(dir: string, created: string[]): Promise<void> {
  if (await pathExists(dir)) return;
  await mkdirTracked(dirname(dir), created);
  await Deno.mkdir(dir);
  created.push(dir);
}
