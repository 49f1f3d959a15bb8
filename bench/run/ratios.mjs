/**
 * The ratios `npm run bench` reports, all from the same run: per row, the median of per-round
 * ratios target / ceiling in the same scenario and connection count ("x ceiling"); and the
 * paired comparisons (gateway / peer, modern / legacy, RECHECK 0 / RECHECK default), each the
 * median over rounds of two measurements taken in the same round.
 */
import { median, medianPairedRatio } from '../lib/stats.mjs';
import { CONNECTIONS, SCENARIOS, hasScenario } from './settings.mjs';

function targetLabel(scenario, target) {
  if (scenario.id === 'session-check' && target.id === 'gateway')
    return `gateway, SESSION_RECHECK_MS=${target.recheckMs} (memo)`;
  return target.label;
}

/** One row per (scenario, connections, target): medians across rounds and "x ceiling". */
export function summarize(measurements, targets) {
  const rows = [];
  for (const s of SCENARIOS) {
    for (const c of CONNECTIONS) {
      const of = (t) => measurements.filter((m) => m.scenario === s.id && m.connections === c && m.target === t);
      const ceilingByRound = new Map(of('ceiling').map((m) => [m.round, m]));
      for (const t of s.targets) {
        const ms = of(t);
        const ratios = ms.map((m) => m.rps / ceilingByRound.get(m.round)?.rps).filter(Number.isFinite);
        rows.push({
          scenario: s.id,
          scenarioLabel: s.label,
          connections: c,
          target: t,
          targetLabel: targetLabel(s, targets[t]),
          rounds: ms.length,
          rps: median(ms.map((m) => m.rps)),
          p50: median(ms.map((m) => m.p50)),
          p99: median(ms.map((m) => m.p99)),
          ratioToCeiling: median(ratios),
          cpuUsPerReq: median(ms.map((m) => m.cpuUsPerReq).filter(Number.isFinite)),
          rpsPerRound: ms.map((m) => Math.round(m.rps)),
        });
      }
    }
  }
  return rows;
}

/**
 * Median over rounds of num's `field` (req/s by default) ÷ den's, each pair taken in the same round;
 * num and den are { scenario, target } and may come from different scenarios.
 */
function pairedRatio(measurements, c, num, den, field = 'rps') {
  const byRound = ({ scenario, target }) =>
    new Map(
      measurements
        .filter((m) => m.scenario === scenario && m.connections === c && m.target === target)
        .map((m) => [m.round, m[field]]),
    );
  return medianPairedRatio(byRound(num), byRound(den));
}

/** The modern list on the gateway, the numerator of the era comparisons. */
const MODERN_GW = { scenario: 'modern-list', target: 'gateway' };
const RECHECK0 = { scenario: 'session-check', target: 'gateway-recheck0' };

/** The paired comparisons, per connection count, for the scenarios that ran. */
export function pairedRatios(measurements, targets) {
  const extra = [];
  for (const c of CONNECTIONS) {
    for (const s of SCENARIOS.filter((x) => x.targets.includes('peer'))) {
      const gw = s.targets.find((t) => targets[t].kind === 'gateway');
      const ratio = pairedRatio(measurements, c, { scenario: s.id, target: gw }, { scenario: s.id, target: 'peer' });
      extra.push({ kind: 'gateway/peer', scenario: s.id, connections: c, ratio });
    }
    if (hasScenario('modern-list') && hasScenario('list')) {
      // Same gateway instance, same round: the modern list over the legacy in-session list.
      const legacy = { scenario: 'list', target: 'gateway' };
      extra.push({
        kind: 'modern/legacy',
        scenario: 'modern-list',
        connections: c,
        ratio: pairedRatio(measurements, c, MODERN_GW, legacy),
        cpuRatio: pairedRatio(measurements, c, MODERN_GW, legacy, 'cpuUsPerReq'),
      });
    }
    if (hasScenario('modern-list') && hasScenario('session-check')) {
      // A legacy client whose previous request is older than SESSION_RECHECK_MS (a person picking a slash
      // command now and then) has its session checked with its Durable Object: RECHECK 0 measures that request.
      extra.push({
        kind: 'modern/legacy-checked',
        scenario: 'modern-list',
        connections: c,
        ratio: pairedRatio(measurements, c, MODERN_GW, RECHECK0),
      });
    }
    if (hasScenario('session-check')) {
      const ratio = pairedRatio(measurements, c, RECHECK0, { scenario: 'session-check', target: 'gateway' });
      extra.push({ kind: 'recheck0/recheckDefault', scenario: 'session-check', connections: c, ratio });
    }
  }
  return extra;
}
