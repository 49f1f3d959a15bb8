/** Number formats of the printed tables, and the machine line every report starts with. */
import os from 'node:os';

export const fmtInt = (n) => (Number.isFinite(n) ? Math.round(n).toLocaleString('en-US') : 'n/a');
/** Milliseconds with `digits` decimals (run.mjs prints 2, fanout and aggregate 1). */
export const fmtMs = (n, digits = 1) => (Number.isFinite(n) ? n.toFixed(digits) : 'n/a');
export const fmtX = (n) => (Number.isFinite(n) ? `${n.toFixed(2)}x` : 'n/a');
export const kib = (b) => `${(b / 1024).toFixed(1)} KiB`;
export const fmtLoad = (l) => l.map((x) => x.toFixed(2)).join(' ');
export const cpuLine = () => `${os.cpus().length} x ${os.cpus()[0]?.model?.trim()}`;
