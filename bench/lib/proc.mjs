/**
 * What /proc says about the targets' processes: CPU time (so a measurement reports CPU per
 * request, which does not depend on how much of the 2 cores the load generator took), RSS,
 * and which workerd child belongs to which Miniflare instance. Linux only; elsewhere every
 * reader returns undefined/NaN/null and the reports say n/a.
 */
import { execSync } from 'node:child_process';
import { readdirSync, readFileSync } from 'node:fs';

export const CLK_TCK = (() => {
  try {
    return Number(execSync('getconf CLK_TCK', { encoding: 'utf8' }).trim()) || 100;
  } catch {
    return 100;
  }
})();

/** The fields of /proc/<pid>/stat after the command name. */
const statFields = (pid) => {
  const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
  return stat.slice(stat.lastIndexOf(')') + 2).split(' ');
};

/** utime + stime of all threads, in clock ticks. */
export function cpuTicks(pid) {
  if (!pid) return undefined;
  try {
    const fields = readFileSync(`/proc/${pid}/stat`, 'utf8').split(') ')[1].split(' ');
    return Number(fields[11]) + Number(fields[12]);
  } catch {
    return undefined;
  }
}

/** User + system CPU time of a pid in ms (clock ticks of 10 ms on Linux), or NaN. */
export function cpuMs(pid) {
  try {
    const fields = statFields(pid);
    return (Number(fields[11]) + Number(fields[12])) * 10;
  } catch {
    return NaN;
  }
}

/** RSS in MiB of a pid, or NaN. */
export function rssMiB(pid) {
  try {
    const m = /^VmRSS:\s+(\d+)\s+kB/m.exec(readFileSync(`/proc/${pid}/status`, 'utf8'));
    return m ? Number(m[1]) / 1024 : NaN;
  } catch {
    return NaN;
  }
}

const pidDirs = () => readdirSync('/proc').filter((p) => /^\d+$/.test(p));

/** workerd processes started by this process (Miniflare's runtime), by pid. */
export function workerdChildren() {
  try {
    return new Set(
      pidDirs()
        .filter((p) => {
          try {
            return (
              readFileSync(`/proc/${p}/comm`, 'utf8').trim() === 'workerd' &&
              readFileSync(`/proc/${p}/stat`, 'utf8').split(') ')[1].split(' ')[1] === String(process.pid)
            );
          } catch {
            return false;
          }
        })
        .map(Number),
    );
  } catch {
    return new Set();
  }
}

/**
 * The workerd process of the Miniflare instance listening on `port`: a child of this process
 * named workerd whose command line carries Miniflare's `--socket-addr=entry=…` (with the port
 * when Miniflare put it there); else the newest such child. Null when /proc cannot tell.
 */
export function findWorkerd(port) {
  let dirs;
  try {
    dirs = pidDirs();
  } catch {
    return null;
  }
  const found = [];
  for (const d of dirs) {
    try {
      const stat = readFileSync(`/proc/${d}/stat`, 'utf8');
      const close = stat.lastIndexOf(')');
      const comm = stat.slice(stat.indexOf('(') + 1, close);
      const fields = stat.slice(close + 2).split(' ');
      if (Number(fields[1]) !== process.pid || !comm.startsWith('workerd')) continue;
      const entry = readFileSync(`/proc/${d}/cmdline`, 'utf8')
        .split('\0')
        .find((a) => a.startsWith('--socket-addr=entry='));
      if (!entry) continue;
      found.push({ pid: Number(d), startTicks: Number(fields[19]), portMatch: entry.endsWith(`:${port}`), entry });
    } catch {
      // Gone meanwhile.
    }
  }
  if (!found.length) return null;
  found.sort((a, b) => Number(b.portMatch) - Number(a.portMatch) || b.startTicks - a.startTicks);
  return found[0];
}
