/**
 * The harnesses' knobs are env variables; a bad value stops the run before anything starts,
 * with the variable's name in the message.
 */

export function envNum(name, fallback, { min = 0, integer = true } = {}) {
  const raw = process.env[name];
  if (raw === undefined || raw === '') return fallback;
  const n = Number(raw);
  if (!Number.isFinite(n) || n < min || (integer && !Number.isInteger(n))) {
    throw new Error(`${name} must be ${integer ? 'an integer' : 'a number'} >= ${min}, got ${JSON.stringify(raw)}`);
  }
  return n;
}

/** Comma-separated connection counts (integers >= 1). */
export function envConnections(name, fallback = '10,50') {
  return (process.env[name] || fallback).split(',').map((s) => {
    const n = Number(s.trim());
    if (!Number.isInteger(n) || n < 1) throw new Error(`${name}: bad value ${JSON.stringify(s)}`);
    return n;
  });
}

/** Comma-separated integers >= min; `fallback` when unset or blank. */
export function envList(name, fallback, min) {
  const raw = process.env[name];
  if (raw === undefined || raw.trim() === '') return fallback;
  return raw.split(',').map((s) => {
    const n = Number(s.trim());
    if (!Number.isInteger(n) || n < min)
      throw new Error(`${name}: bad value ${JSON.stringify(s)} (integers >= ${min})`);
    return n;
  });
}

/** A comma list of ids, each one of `all` (by `.id`); all of them when unset. */
export function envSelect(name, all) {
  const want = process.env[name]
    ?.split(',')
    .map((s) => s.trim())
    .filter(Boolean);
  if (!want?.length) return all;
  for (const id of want) if (!all.some((x) => x.id === id)) throw new Error(`${name}: unknown scenario "${id}"`);
  return all.filter((x) => want.includes(x.id));
}
