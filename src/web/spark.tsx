/** @jsxImportSource hono/jsx */
/**
 * A prompt's last seven days of prompts/get as a tiny inline SVG polyline: no script, no image
 * request, styled by the stylesheet (currentColor), with the numbers in its accessible name.
 */
const W = 70;
const H = 18;

export function Spark({ use }: { use: number[] | undefined }) {
  if (use === undefined)
    return (
      <svg class="spark" viewBox={`0 0 ${W} ${H}`} width={W} height={H} role="img">
        <title>Use not shown</title>
      </svg>
    );
  const days = use.length ? use : [0, 0, 0, 0, 0, 0, 0];
  const max = Math.max(1, ...days);
  const step = days.length > 1 ? W / (days.length - 1) : W;
  const points = days.map((n, i) => `${(i * step).toFixed(1)},${(H - 1 - (n / max) * (H - 2)).toFixed(1)}`).join(' ');
  const total = days.reduce((a, b) => a + b, 0);
  return (
    <svg class="spark" viewBox={`0 0 ${W} ${H}`} width={W} height={H} role="img">
      <title>{`${total} uses in the last ${days.length} days (${days.join(', ')})`}</title>
      <polyline points={points} fill="none" stroke="currentColor" stroke-width="1.5" />
    </svg>
  );
}
