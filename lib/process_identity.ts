/**
 * Which process owns a running run, and whether that process is still alive. On Linux the owner is
 * identified by pid and start time (from /proc), so a recycled pid is not mistaken for the owner.
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

let own: { pid: number; start: string } | undefined;

/**
 * This process's identity.
 *
 * @returns Its pid and start marker.
 */
export function ownProcess(): { pid: number; start: string } {
  own ??= {
    pid: Deno.pid,
    start: readStartTime(Deno.pid) ?? `t${Date.now() - Math.round(performance.now())}`,
  };
  return own;
}

/**
 * Whether the process that wrote `(pid, start)` is still running.
 *
 * @param pid The owner's pid.
 * @param start The owner's start marker.
 * @returns False only when the owner is certainly gone.
 */
export function isProcessAlive(pid: number, start: string | null): boolean {
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
