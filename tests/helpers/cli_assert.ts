/**
 * Assertions over CLI results: exactly one ok-wrapped JSON document with `--json`, human text and
 * `error: …` lines without it.
 *
 * @module
 */

import assert from "node:assert/strict";
import type { CliResult } from "./cli.ts";

// deno-lint-ignore no-explicit-any
export type Json = any;

const ERROR_KINDS = [
  "bad_input",
  "unauthorized",
  "forbidden",
  "not_found",
  "over_capacity",
  "untrusted",
  "conflict",
  "internal",
];

/** Asserts stdout is exactly one JSON document on a single line and returns it parsed. */
export function oneJsonDocument(r: CliResult): Json {
  assert.ok(
    r.stdout.endsWith("\n"),
    `stdout should end with a newline: ${JSON.stringify(r.stdout)}`,
  );
  assert.equal(
    r.stdout.trimEnd().split("\n").length,
    1,
    `stdout should be a single line: ${r.stdout}`,
  );
  let doc: Json;
  try {
    doc = JSON.parse(r.stdout);
  } catch (err) {
    assert.fail(`stdout is not one JSON document (${(err as Error).message}): ${r.stdout}`);
  }
  assert.equal(typeof doc, "object");
  assert.notEqual(doc, null);
  return doc;
}

/** Asserts a `--json` success: exit code, `{ok: true, data}`; returns `data`. */
export function jsonOk(r: CliResult, code = 0): Json {
  assert.equal(r.code, code, `exit code (stderr: ${r.stderr}, stdout: ${r.stdout})`);
  const doc = oneJsonDocument(r);
  assert.equal(doc.ok, true, r.stdout);
  assert.ok("data" in doc, "an ok document carries data");
  assert.equal("error" in doc, false);
  return doc.data;
}

/** Asserts a `--json` failure: exit code, `{ok: false, error: {kind, message, details}}`; returns `error`. */
export function jsonError(r: CliResult, kind: string, code: number): Json {
  assert.equal(r.code, code, `exit code (stderr: ${r.stderr}, stdout: ${r.stdout})`);
  const doc = oneJsonDocument(r);
  assert.equal(doc.ok, false, r.stdout);
  assert.equal("data" in doc, false);
  const error = doc.error;
  assert.ok(ERROR_KINDS.includes(error.kind), `known kind: ${error.kind}`);
  assert.equal(error.kind, kind, error.message);
  assert.equal(typeof error.message, "string");
  assert.ok(error.message.length > 0);
  assert.equal(typeof error.details, "object");
  assert.notEqual(error.details, null);
  assert.equal(Array.isArray(error.details), false);
  return error;
}

/** Asserts a human success: exit code 0, the text on stdout, nothing on stderr; returns stdout. */
export function humanOk(r: CliResult, code = 0): string {
  assert.equal(r.code, code, `exit code (stderr: ${r.stderr})`);
  assert.equal(r.stderr, "", "nothing on stderr");
  assert.ok(r.stdout.length > 0, "human text on stdout");
  assert.doesNotMatch(r.stdout, /^\{"ok":/, "human text, not the ok wrapper");
  return r.stdout;
}

/** Asserts a human failure: exit code, empty stdout, stderr starting with `error:`; returns stderr. */
export function humanError(r: CliResult, code: number): string {
  assert.equal(r.code, code, `exit code (stdout: ${r.stdout}, stderr: ${r.stderr})`);
  assert.equal(r.stdout, "", "nothing on stdout");
  assert.ok(r.stderr.startsWith("error:"), `stderr starts with "error:": ${r.stderr}`);
  return r.stderr;
}
