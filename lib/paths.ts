/**
 * Every location the framework reads or writes, in one place. Environment variables are read at call
 * time so that tests and embedders can relocate the home per process.
 *
 * @module
 */

import { isAbsolute, join, resolve } from "node:path";

/** The name of the per-harness state folder and of the per-user home folder. */
export const STATE_DIR_NAME = ".framework";

let homeOverride: string | undefined;

/**
 * Points the home at another folder for this JavaScript realm only (tests running in parallel in one
 * process, embedders). `undefined` restores `$FRAMEWORK_HOME` / `~/.framework`.
 *
 * @param path The folder, or undefined.
 */
export function setFrameworkHome(path: string | undefined): void {
  homeOverride = path === undefined ? undefined : resolve(path);
}

/**
 * The per-user home: the realm override, else `$FRAMEWORK_HOME`, else `~/.framework`.
 *
 * @returns An absolute path.
 */
export function frameworkHome(): string {
  if (homeOverride) return homeOverride;
  const fromEnv = Deno.env.get("FRAMEWORK_HOME");
  if (fromEnv) return resolve(fromEnv);
  const home = Deno.env.get("HOME") ?? Deno.env.get("USERPROFILE") ?? Deno.cwd();
  return join(home, STATE_DIR_NAME);
}

/** `<home>/hive.db`. */
export function hivePath(): string {
  return join(frameworkHome(), "hive.db");
}

/** `<home>/trust.json`. */
export function trustStorePath(): string {
  return join(frameworkHome(), "trust.json");
}

/** `<home>/keys`, the default output folder of `keys generate`. */
export function defaultKeysDir(): string {
  return join(frameworkHome(), "keys");
}

/** `<home>/workbench`. */
export function workbenchDir(): string {
  return join(frameworkHome(), "workbench");
}

/** The workbench database: `$FRAMEWORK_UI_DB`, else `<home>/workbench/workbench.db`. */
export function workbenchDbPath(): string {
  const fromEnv = Deno.env.get("FRAMEWORK_UI_DB");
  return fromEnv ? resolve(fromEnv) : join(workbenchDir(), "workbench.db");
}

/** The file that makes a folder a harness. */
export const SPEC_FILE_NAME = "harness.yaml";

/** `<harness>/harness.yaml`. */
export function specPath(harnessDir: string): string {
  return join(harnessDir, SPEC_FILE_NAME);
}

/** `<harness>/.framework`, the per-harness state folder. */
export function harnessStateDir(harnessDir: string): string {
  return join(harnessDir, STATE_DIR_NAME);
}

/** `<harness>/.framework/construction.log`. */
export function constructionLogPath(harnessDir: string): string {
  return join(harnessStateDir(harnessDir), "construction.log");
}

/** `<harness>/.framework/harness.lock`, the cross-process lock of `harness.yaml`. */
export function specLockPath(harnessDir: string): string {
  return join(harnessStateDir(harnessDir), "harness.lock");
}

/**
 * The authorized-key store: an explicit path, else `$FRAMEWORK_AUTHORIZED_KEYS`, else
 * `<harness>/.framework/authorized_keys.json`.
 *
 * @param harnessDir The harness folder.
 * @param explicit A path given on the command line.
 * @returns An absolute path.
 */
export function authorizedKeysPath(harnessDir: string, explicit?: string): string {
  const chosen = explicit ?? Deno.env.get("FRAMEWORK_AUTHORIZED_KEYS");
  if (chosen) return resolve(chosen);
  return join(harnessStateDir(harnessDir), "authorized_keys.json");
}

/**
 * The trace directory of a harness: `logging.trace_dir` (relative to the harness folder) or
 * `<harness>/.framework/traces`.
 *
 * @param harnessDir The harness folder.
 * @param configured The `logging.trace_dir` value, if any.
 * @returns An absolute path.
 */
export function traceDir(harnessDir: string, configured?: string): string {
  if (!configured) return join(harnessStateDir(harnessDir), "traces");
  return isAbsolute(configured) ? configured : resolve(harnessDir, configured);
}

/** `<harness>/workspace`, the only folder code refs may write by default. */
export function workspaceDir(harnessDir: string): string {
  return join(harnessDir, "workspace");
}

/**
 * Why a file or folder name is never read, listed or written by a tool or code ref: the state
 * folder (keys, trust, logs, traces) and `.env*` files (credentials). Case-insensitive, since some
 * file systems are. The one home of this rule: paths, listings and the code sandbox all ask here.
 *
 * @example
 * ```ts
 * sensitiveName(".ENV.local"); // "it names a .env file (credentials)"
 * sensitiveName("notes.md"); // undefined
 * ```
 *
 * @param name One path segment.
 * @returns The reason, or undefined when the name is ordinary.
 */
export function sensitiveName(name: string): string | undefined {
  const lower = name.toLowerCase();
  if (lower === STATE_DIR_NAME) {
    return `it is inside ${STATE_DIR_NAME}/ (keys, trust, logs and traces)`;
  }
  if (isEnvName(lower)) return "it names a .env file (credentials)";
  return undefined;
}

/**
 * Whether a path segment names a `.env` file or folder, where credentials live (case-insensitive).
 *
 * @param name One path segment.
 * @returns True for `.env`, `.ENV.local`, `.envrc`.
 */
export function isEnvName(name: string): boolean {
  return name.toLowerCase().startsWith(".env");
}
