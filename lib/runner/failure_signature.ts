/**
 * The runner's failure signatures: the signature is vocabulary (`lib/failure_signature.ts`, floor 1)
 * so the pages can read one back without bundling the runner; the runner writes it from there.
 *
 * @module
 */

export { failureSignature } from "../failure_signature.ts";
