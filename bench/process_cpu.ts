/**
 * CPU time of processes and their threads from Linux `/proc` (`utime + stime` of
 * `/proc/<pid>/task/<tid>/stat`), and of the whole machine (`/proc/stat`), so a benchmark can say
 * where a load's CPU went and whether the machine's cores were saturated.
 *
 * @module
 */

/** Clock ticks per second of `/proc`'s times (Linux's `USER_HZ`, 100 on every common build). */
const TICKS_PER_S = 100;

/** One thread's CPU so far. */
export interface ThreadCpu {
  pid: number;
  tid: number;
  /** The thread's name (`comm`). */
  name: string;
  /** User + system CPU, milliseconds. */
  ms: number;
}

function parseStat(text: string): { name: string; ms: number; ppid: number } {
  // The name is in parentheses and may hold spaces; the fields after it are space-separated.
  const close = text.lastIndexOf(")");
  const name = text.slice(text.indexOf("(") + 1, close);
  const f = text.slice(close + 2).split(" ");
  // f[0] is field 3 (state): utime is field 14, stime field 15, ppid field 4.
  const ticks = Number(f[11]) + Number(f[12]);
  return { name, ms: ticks * 1000 / TICKS_PER_S, ppid: Number(f[1]) };
}

/**
 * Every thread of a process with its CPU so far (empty when the process is gone).
 *
 * @param pid The process.
 * @returns Its threads.
 */
export function threadCpu(pid: number): ThreadCpu[] {
  const out: ThreadCpu[] = [];
  try {
    for (const e of Deno.readDirSync(`/proc/${pid}/task`)) {
      try {
        const s = parseStat(Deno.readTextFileSync(`/proc/${pid}/task/${e.name}/stat`));
        out.push({ pid, tid: Number(e.name), name: s.name, ms: s.ms });
      } catch { /* the thread ended */ }
    }
  } catch { /* the process ended */ }
  return out;
}

/**
 * A PostgreSQL server's processes: the postmaster (from `<data>/postmaster.pid`) and its children
 * (backends, WAL writer, checkpointer…).
 *
 * @param dataDir The cluster's data folder.
 * @returns Their pids.
 */
export function postgresPids(dataDir: string): number[] {
  const master = Number(Deno.readTextFileSync(`${dataDir}/postmaster.pid`).split("\n")[0]);
  const pids = [master];
  for (const e of Deno.readDirSync("/proc")) {
    if (!/^\d+$/.test(e.name)) continue;
    try {
      if (parseStat(Deno.readTextFileSync(`/proc/${e.name}/stat`)).ppid === master) {
        pids.push(Number(e.name));
      }
    } catch { /* gone */ }
  }
  return pids;
}

/**
 * The machine's CPU so far: busy and total milliseconds summed over its cores (`/proc/stat`).
 *
 * @returns Busy (everything but idle and iowait) and total.
 */
export function machineCpu(): { busyMs: number; totalMs: number } {
  const line = Deno.readTextFileSync("/proc/stat").split("\n")[0]!.trim().split(/\s+/).slice(1)
    .map(Number);
  const total = line.reduce((a, b) => a + b, 0);
  const idle = line[3]! + (line[4] ?? 0);
  return { busyMs: (total - idle) * 1000 / TICKS_PER_S, totalMs: total * 1000 / TICKS_PER_S };
}

/**
 * The CPU each thread used between two readings (threads that started in between count from zero).
 *
 * @param before The first reading.
 * @param after The second.
 * @returns Per thread, milliseconds.
 */
export function cpuBetween(before: ThreadCpu[], after: ThreadCpu[]): ThreadCpu[] {
  const was = new Map(before.map((t) => [t.tid, t.ms]));
  return after.map((t) => ({ ...t, ms: t.ms - (was.get(t.tid) ?? 0) }));
}
