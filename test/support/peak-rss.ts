import { existsSync, readFileSync } from "node:fs";

/** Whether this system shows processes' memory in /proc (Linux). */
export const CAN_MEASURE_RSS = existsSync("/proc/self/status");

function descendants(pid: number): number[] {
  const found: number[] = [];
  const visit = (id: number) => {
    let tasks: string;
    try {
      tasks = readFileSync(`/proc/${id}/task/${id}/children`, "utf8");
    } catch {
      return;
    }
    for (const child of tasks.trim().split(/\s+/).filter(Boolean).map(Number)) {
      found.push(child);
      visit(child);
    }
  };
  visit(pid);
  return found;
}

function highWaterKb(pid: number): number {
  try {
    const match = /VmHWM:\s+(\d+) kB/.exec(readFileSync(`/proc/${pid}/status`, "utf8"));
    return match ? Number(match[1]) : 0;
  } catch {
    return 0;
  }
}

/**
 * Watches a process and its descendants (a server, the CLI and its SQL reader) until `stop()`:
 * the largest peak resident set (VmHWM) any of them reached, in MB. Peaks are kept by the
 * kernel, so sampling every few milliseconds misses nothing of a process that is still alive.
 */
export function watchPeakRss(pid: number): { stop(): number; peakMb(): number } {
  let peakKb = 0;
  const sample = () => {
    for (const id of [pid, ...descendants(pid)]) peakKb = Math.max(peakKb, highWaterKb(id));
  };
  sample();
  const timer = setInterval(sample, 10);
  return {
    peakMb: () => peakKb / 1024,
    stop() {
      sample();
      clearInterval(timer);
      return peakKb / 1024;
    },
  };
}
