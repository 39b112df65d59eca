// CPU time of each thread of this process (Linux /proc), for benchmarks that ask which thread
// spends it: the main thread, the analysis workers, and V8's helper threads (GC, compiler).

import { readdirSync, readFileSync } from "node:fs";

/** Clock ticks a second in /proc/<pid>/task/<tid>/stat (USER_HZ, 100 on Linux). */
const TICK_US = 10_000;

/**
 * Each thread now: CPU µs (user + system), and from schedstat the ns it ran and the ns it was
 * ready but waited for a core. Undefined where /proc is missing (not Linux).
 */
export function threadTimes() {
  let tids;
  try {
    tids = readdirSync("/proc/self/task");
  } catch {
    return undefined;
  }
  const out = new Map();
  for (const tid of tids) {
    try {
      const stat = readFileSync(`/proc/self/task/${tid}/stat`, "utf8");
      const fields = stat.slice(stat.lastIndexOf(")") + 2).split(" ");
      const [run, wait] = readFileSync(`/proc/self/task/${tid}/schedstat`, "utf8").split(" ").map(Number);
      out.set(tid, { cpu: (Number(fields[11]) + Number(fields[12])) * TICK_US, run, wait });
    } catch {
      // The thread ended meanwhile.
    }
  }
  return out;
}

/**
 * What each thread spent between two `threadTimes()`, grouped: the main thread, the threads that
 * did more than `busyUs` µs of CPU per unit of work (the analysis workers when they ran: V8's
 * helpers stay far below), and every other thread together. Per group: CPU µs per unit of work,
 * and the share of the wall time it ran and waited for a core.
 */
export function threadShares(before, after, units, wallSeconds, busyUs = 25) {
  if (!before || !after) return undefined;
  const rows = [];
  for (const [tid, t] of after) {
    const b = before.get(tid) ?? { cpu: 0, run: 0, wait: 0 };
    rows.push({ main: tid === String(process.pid), cpu: t.cpu - b.cpu, run: t.run - b.run, wait: t.wait - b.wait });
  }
  const main = rows.filter((r) => r.main);
  const busy = rows.filter((r) => !r.main && r.cpu / units > busyUs);
  const rest = rows.filter((r) => !r.main && r.cpu / units <= busyUs);
  const groups = [
    ["main thread", main],
    [`${busy.length} other busy thread(s) (analysis workers)`, busy],
    ["all other threads (V8 GC and compiler helpers, libuv)", rest],
  ];
  const wallNs = wallSeconds * 1e9;
  return groups.map(([name, list]) => {
    const sum = (key) => list.reduce((n, r) => n + r[key], 0);
    return {
      threads: name,
      "µs CPU / chunk": +(sum("cpu") / units).toFixed(1),
      "ran, % of wall": Math.round((100 * sum("run")) / wallNs),
      "waited for a core, % of wall": Math.round((100 * sum("wait")) / wallNs),
    };
  });
}
