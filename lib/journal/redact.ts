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
  const patterns = (config?.patterns ?? []).map((p) => new RegExp(p, "g"));
  const fields = new Set((config?.fields ?? []).map((f) => f.toLowerCase()));
  if (patterns.length === 0 && fields.size === 0) return (v) => v;
  const walk = (value: unknown): unknown => {
    if (typeof value === "string") {
      let out = value;
      for (const re of patterns) out = out.replace(re, REDACTED);
      return out;
    }
    if (Array.isArray(value)) return value.map(walk);
    if (value && typeof value === "object") {
      const out: Record<string, unknown> = {};
      for (const [k, v] of Object.entries(value)) {
        out[k] = fields.has(k.toLowerCase()) ? REDACTED : walk(v);
      }
      return out;
    }
    return value;
  };
  return walk;
}
