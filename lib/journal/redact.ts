/**
 * `logging.redact`: regular expressions and field names whose matches never reach a journal line.
 *
 * @module
 */

/** The `logging.redact` block. */
export interface RedactConfig {
  patterns?: string[];
  fields?: string[];
}

/** What replaces a redacted value. */
export const REDACTED = "[REDACTED]";

/** A compiled redactor: applies the patterns and field names to any JSON value. */
export type Redactor = (value: unknown) => unknown;

/** A compiled `logging.redact`: patterns over every string, field names at any depth. */
export interface Redaction {
  patterns: RegExp[];
  /** Lowercased field names. */
  fields: Set<string>;
}

/**
 * Compiles `logging.redact`. The same settings object (a spec snapshot's, shared by every run of it)
 * gives the same compiled redaction while its patterns and fields are unchanged: what the journal
 * keeps of a text made under a redaction (a thread's history, given to each of its runs:
 * lib/journal/payload.ts) is found again only under the same one.
 *
 * @param config The redaction settings.
 * @returns The compiled redaction, or undefined when it redacts nothing.
 */
export function compileRedaction(config: RedactConfig | undefined): Redaction | undefined {
  if (config === undefined) return undefined;
  const key = JSON.stringify([config.patterns ?? [], config.fields ?? []]);
  const known = compiled.get(config);
  if (known?.key === key) return known.redaction;
  const patterns = (config.patterns ?? []).map((p) => new RegExp(p, "g"));
  const fields = new Set((config.fields ?? []).map((f) => f.toLowerCase()));
  const redaction = patterns.length || fields.size ? { patterns, fields } : undefined;
  compiled.set(config, { key, redaction });
  return redaction;
}

/**
 * The redaction compiled for each settings object, with the settings it was compiled from (a
 * settings object changed since is compiled again). Patterns are only ever used by `replace`, which
 * starts every global match from the beginning, so one compiled pattern serves every journal.
 */
const compiled = new WeakMap<RedactConfig, { key: string; redaction: Redaction | undefined }>();

/**
 * A string with every match of the patterns replaced. A pattern may match half of a surrogate pair
 * (patterns are not compiled in Unicode mode): the half left behind becomes U+FFFD, so a redacted
 * string can still be canonicalized and hashed.
 */
export function redactText(text: string, redaction: Redaction): string {
  let out = text;
  for (const re of redaction.patterns) out = out.replace(re, REDACTED);
  return out === text ? out : out.toWellFormed();
}

/** Whether a key's whole value is replaced (its name, in any case, is a redacted field). */
export function redactsField(key: string, redaction: Redaction): boolean {
  return redaction.fields.has(key.toLowerCase());
}

/**
 * Compiles a redactor. Patterns replace every match inside every string (keys are left alone);
 * fields replace the whole value of a key with that name (case-insensitive), at any depth.
 *
 * @example
 * ```ts
 * const redact = makeRedactor({ patterns: ["sk-[a-z0-9]+"], fields: ["password"] });
 * redact({ text: "key sk-abc", password: "x" }); // { text: "key [REDACTED]", password: "[REDACTED]" }
 * ```
 * @param config The redaction settings.
 * @returns The redactor (the identity when nothing is configured).
 */
export function makeRedactor(config: RedactConfig | undefined): Redactor {
  const redaction = compileRedaction(config);
  if (!redaction) return (v) => v;
  const walk = (value: unknown): unknown => {
    if (typeof value === "string") return redactText(value, redaction);
    if (Array.isArray(value)) return value.map(walk);
    if (value && typeof value === "object") {
      const out: Record<string, unknown> = {};
      for (const [k, v] of Object.entries(value)) {
        out[k] = redactsField(k, redaction) ? REDACTED : walk(v);
      }
      return out;
    }
    return value;
  };
  return walk;
}
