/**
 * `framework keys`: generate and sign on the member's machine; authorize, revoke and list on the
 * deploy box. The private key never leaves the member's machine; the operator only handles public keys.
 *
 * @module
 */

import type { Command } from "commander";
import { verbDescription } from "../verb_table.ts";
import { badInput } from "../../lib/errors.ts";
import { wholeOption } from "../../lib/whole_number.ts";
import { generateKey } from "../../lib/keys/key_files.ts";
import { authorizeKey, listKeys, revokeKey } from "../../lib/keys/key_store.ts";
import { DEFAULT_TTL_SECONDS, MAX_TTL_SECONDS, signToken } from "../../lib/keys/tokens.ts";
import { authorizedKeysPath } from "../../lib/paths.ts";
import { resolveHarnessDir } from "../../lib/harness_spec/load.ts";
import { type GlobalOptions, runVerb } from "../output.ts";

interface StoreOptions extends GlobalOptions {
  harness?: string;
  authorizedKeys?: string;
}

function collect(value: string, previous: string[]): string[] {
  return [...previous, value];
}

/** The store a deploy-box verb works on: --authorized-keys, $FRAMEWORK_AUTHORIZED_KEYS, or the harness's. */
async function storePath(o: StoreOptions): Promise<string> {
  if (o.authorizedKeys || Deno.env.get("FRAMEWORK_AUTHORIZED_KEYS")) {
    return authorizedKeysPath(o.harness ?? ".", o.authorizedKeys);
  }
  if (!o.harness) {
    throw badInput(
      "Missing --harness <dir> (or --authorized-keys <file>): which harness's key store?",
    );
  }
  return authorizedKeysPath(await resolveHarnessDir(o.harness));
}

function parseTtl(raw: string | undefined): number | undefined {
  if (raw === undefined) return undefined;
  return wholeOption(raw.trim(), { name: "--ttl (seconds)", min: 1 });
}

/**
 * Registers `keys` and its verbs.
 *
 * @param program The root command.
 */
export function registerKeysCommands(program: Command): void {
  const keys = program.command("keys").description(verbDescription("keys"));
  registerKeysGenerate(keys);
  registerKeysSign(keys);
  registerKeysAuthorize(keys);
  registerKeysRevoke(keys);
  registerKeysList(keys);
}

/** Registers `framework keys generate`. */
function registerKeysGenerate(keys: Command): void {
  keys.command("generate")
    .description("Create an ed25519 key pair on your machine (the private key never leaves it)")
    .argument("<name>", "a name for the key (the file is <name>.pem)")
    .option("--out-dir <dir>", "where to write the key (default ~/.framework/keys)")
    .option("--json", "print the ok-wrapped JSON result")
    .action((name: string, o: GlobalOptions & { outDir?: string }) =>
      runVerb(o, async () => {
        const data = await generateKey(name, o.outDir);
        return {
          data,
          text: [
            `Private key: ${data.path} (mode 0600; keep it on this machine)`,
            `Public key:  ${data.public_key}`,
            `Key id:      ${data.key_id}`,
            "",
            "Send the public key to the operator, who runs on the deploy box:",
            `  framework keys authorize --harness <dir> --scope run -- ${name} ${data.public_key}`,
            "Then mint tokens here with:",
            `  framework keys sign --key ${data.path} --scope run`,
          ].join("\n"),
        };
      })
    );
}

/** Registers `framework keys sign`. */
function registerKeysSign(keys: Command): void {
  keys.command("sign")
    .description("Mint a bearer token with your private key (without --json: the bare token)")
    .requiredOption("--key <path>", "your private key file (PKCS#8 PEM; openssl keys work too)")
    .option("--subject <sub>", "the token's subject (default: the key file's name)")
    .option(
      "--scope <scope>",
      "run, read, mutate, evolve or * (repeatable or comma-separated; default *)",
      collect,
      [],
    )
    .option(
      "--ttl <seconds>",
      `lifetime in seconds (default ${DEFAULT_TTL_SECONDS}, at most ${MAX_TTL_SECONDS})`,
    )
    .option("--audience <harness-id>", "bind the token to one harness id (aud)")
    .option("--json", "print the ok-wrapped JSON result")
    .action((
      o: GlobalOptions & {
        key: string;
        subject?: string;
        scope: string[];
        ttl?: string;
        audience?: string;
      },
    ) =>
      runVerb(o, async () => {
        const ttl = parseTtl(o.ttl);
        const data = await signToken({
          keyPath: o.key,
          ...(o.subject ? { subject: o.subject } : {}),
          scopes: o.scope,
          ...(ttl !== undefined ? { ttl } : {}),
          ...(o.audience ? { audience: o.audience } : {}),
        });
        return { data, text: data.token };
      })
    );
}

/** Registers `framework keys authorize`. */
function registerKeysAuthorize(keys: Command): void {
  keys.command("authorize")
    .description(
      "Allow a public key to call this harness's control plane, with scopes (--scope is required)",
    )
    .argument("<name>", "a name for the member or service")
    .argument("<public-key>", "the raw ed25519 public key, base64url (43 characters)")
    .option("--harness <dir>", "the harness whose key store to change")
    .option(
      "--scope <scope>",
      "run, read, mutate, evolve or * (repeatable or comma-separated; required)",
      collect,
      [],
    )
    .option(
      "--authorized-keys <file>",
      "use this key store instead of <harness>/.framework/authorized_keys.json",
    )
    .option("--json", "print the ok-wrapped JSON result")
    .addHelpText(
      "after",
      "\nA public key that begins with '-' looks like an option: put -- before the positionals, e.g.\n" +
        "  framework keys authorize --harness ./h --scope run -- alice -Abc...xyz\n" +
        "Authorizing the same key again updates its scopes and clears a revocation.",
    )
    .action((name: string, publicKey: string, o: StoreOptions & { scope: string[] }) =>
      runVerb(o, async () => {
        if (!o.scope.length) {
          throw badInput(
            "Missing --scope: say what this key may do (run, read, mutate, evolve, or * for a fully trusted admin); there is no default",
          );
        }
        const path = await storePath(o);
        const data = await authorizeKey(path, name, publicKey, o.scope);
        return {
          data,
          text: `${data.created ? "Authorized" : "Updated"} ${
            JSON.stringify(name)
          } (${data.key_id}) with scopes ${data.scopes.join(" ")} in ${path}`,
        };
      })
    );
}

/** Registers `framework keys revoke`. */
function registerKeysRevoke(keys: Command): void {
  keys.command("revoke")
    .description("Revoke a key (the row is kept and listed); refused from the very next request")
    .argument("<key-id>", "the key id")
    .option("--harness <dir>", "the harness whose key store to change")
    .option(
      "--authorized-keys <file>",
      "use this key store instead of <harness>/.framework/authorized_keys.json",
    )
    .option("--json", "print the ok-wrapped JSON result")
    .addHelpText(
      "after",
      "\nA key id that begins with '-' looks like an option: put -- before it, e.g.\n" +
        "  framework keys revoke --harness ./h -- -dJEs...",
    )
    .action((keyId: string, o: StoreOptions) =>
      runVerb(o, async () => {
        const data = await revokeKey(await storePath(o), keyId);
        return { data, text: `Revoked ${data.key_id} at ${data.revoked_at}` };
      })
    );
}

/** Registers `framework keys list`. */
function registerKeysList(keys: Command): void {
  keys.command("list")
    .description("List the keys of a harness's store, revoked ones included")
    .option("--harness <dir>", "the harness whose key store to read")
    .option(
      "--authorized-keys <file>",
      "use this key store instead of <harness>/.framework/authorized_keys.json",
    )
    .option("--json", "print the ok-wrapped JSON result")
    .action((o: StoreOptions) =>
      runVerb(o, async () => {
        const list = await listKeys(await storePath(o));
        const text = list.length
          ? list.map((k) =>
            `${k.key_id}  ${k.name.padEnd(16)} ${k.scopes.join(",").padEnd(24)} ${
              k.revoked ? `REVOKED ${k.revoked_at}` : "active"
            }`
          )
            .join("\n")
          : "No keys are authorized.";
        return { data: { keys: list }, text };
      })
    );
}
