/**
 * What a per-client limit counts (routes/limits.ts): an IPv4 address as it is; an IPv6 client by
 * its /64, one subscriber's prefix, since counting single IPv6 addresses would give one client 2^64
 * budgets; an IPv4-mapped IPv6 address (::ffff:a.b.c.d) as the IPv4 address it carries.
 */
export function clientKey(ip: string | undefined): string {
  if (ip === undefined) return 'unknown';
  if (!ip.includes(':')) return ip;
  const bare = ip.toLowerCase().split('%')[0]!;
  const mapped = /^::ffff:(\d{1,3}(?:\.\d{1,3}){3})$/.exec(bare);
  if (mapped) return mapped[1]!;
  const groups = expand(bare);
  return groups ? `${groups.slice(0, 4).join(':')}::/64` : bare;
}

/** The eight groups of an IPv6 address, leading zeros dropped; undefined when it is not one. */
function expand(ip: string): string[] | undefined {
  const halves = ip.split('::');
  if (halves.length > 2) return undefined;
  // A dotted IPv4 tail stands for the last two groups.
  const parts = (s: string) => (s ? s.split(':').flatMap((g) => (g.includes('.') ? ['0', '0'] : [g])) : []);
  const left = parts(halves[0]!);
  const right = halves.length === 2 ? parts(halves[1]!) : [];
  const fill = 8 - left.length - right.length;
  if (fill < 0 || (halves.length === 1 && fill !== 0)) return undefined;
  return [...left, ...Array<string>(fill).fill('0'), ...right].map((g) => g.replace(/^0+(?=.)/, ''));
}
