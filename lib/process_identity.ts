/**
 * Which process owns a running run (or a thread's lock), and whether that process is still alive.
 * On Linux the owner is identified by pid and start time (from /proc), so a recycled pid is not
 * mistaken for the owner. Processes on several hosts may share one hive (PostgreSQL): the marker a
 * process writes also names its host (hostname and boot id), and a process judges only the owners
 * of its own host — a pid means nothing on another machine. A marker without a host (rows written
 * before hosts were named) is this host's.
 *
 * @module
 */

function readStartTime(pid: number): string | undefined {
  try {
    const stat = Deno.readTextFileSync(`/proc/${pid}/stat`);
    // Field 22 (starttime) comes after the command name, which may hold spaces: split after ")".
    const fields = stat.slice(stat.lastIndexOf(")") + 2).split(" ");
    return fields[19];
  } catch {
    return undefined;
  }
}

/** A host as an owner marker names it: its hostname, and the boot it is in when known. */
interface Host {
  name: string;
  boot: string | undefined;
}

function readHost(): Host | undefined {
  let name: string;
  try {
    name = Deno.hostname();
  } catch {
    return undefined; // no --allow-sys: markers stay without a host, as before
  }
  let boot: string | undefined;
  try {
    boot = Deno.readTextFileSync("/proc/sys/kernel/random/boot_id").trim() || undefined;
  } catch { /* not Linux */ }
  return { name, boot };
}

/** `<name>` or `<name>/<boot>` (a hostname holds neither `@` nor `/`). */
function hostId(h: Host): string {
  return h.boot ? `${h.name}/${h.boot}` : h.name;
}

function parseHost(id: string): Host {
  const slash = id.indexOf("/");
  return slash < 0
    ? { name: id, boot: undefined }
    : { name: id.slice(0, slash), boot: id.slice(slash + 1) };
}

let own: { pid: number; start: string; marker: string } | undefined;
/** This host, once read (null: it could not be). */
let host: Host | null | undefined;

function thisHost(): Host | undefined {
  if (host === undefined) host = readHost() ?? null;
  return host ?? undefined;
}

/**
 * This process's identity.
 *
 * @example
 * ```ts
 * ownProcess(); // { pid: 4242, start: "81234567", marker: "81234567@web-1/0f6c…" }
 * ```
 * @returns Its pid, start marker (for names on this host's disk) and owner marker (start and host,
 * for rows of the hive, which other hosts may read).
 */
export function ownProcess(): { pid: number; start: string; marker: string } {
  if (!own) {
    const start = readStartTime(Deno.pid) ?? `t${Date.now() - Math.round(performance.now())}`;
    const h = thisHost();
    own = { pid: Deno.pid, start, marker: h ? `${start}@${hostId(h)}` : start };
  }
  return own;
}

/**
 * Whether the process that wrote `(pid, marker)` is still running. A process of another host is
 * never judged here (true); one of this host's earlier boot is gone (false).
 *
 * @example
 * ```ts
 * isProcessAlive(4242, "81234567@web-2/9a1e…"); // true on web-1: web-2 judges its own processes
 * ```
 * @param pid The owner's pid.
 * @param marker The owner's marker: its start, with `@<host>` when written by this version.
 * @returns False only when the owner is certainly gone.
 */
export function isProcessAlive(pid: number, marker: string | null): boolean {
  const at = marker?.indexOf("@") ?? -1;
  const start = at < 0 ? marker : marker!.slice(0, at);
  if (at >= 0) {
    const theirs = parseHost(marker!.slice(at + 1));
    const mine = thisHost();
    if (!mine || theirs.name !== mine.name) return true;
    if (theirs.boot && mine.boot && theirs.boot !== mine.boot) return false; // rebooted since
  }
  const me = ownProcess();
  if (pid === me.pid) return start === me.start;
  const procStart = readStartTime(pid);
  if (procStart !== undefined) return start === null || procStart === start;
  try {
    Deno.statSync("/proc/self");
    return false; // /proc works, so the pid does not exist.
  } catch {
    // No /proc (macOS): probe with a harmless signal.
    try {
      Deno.kill(pid, "SIGCONT");
      return true;
    } catch {
      return false;
    }
  }
}
