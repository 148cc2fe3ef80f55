/**
 * The framework's own version, read from nothing at run time (kept in step with deno.json).
 *
 * @module
 */

/** The framework version. */
export const FRAMEWORK_VERSION = "0.1.0";
