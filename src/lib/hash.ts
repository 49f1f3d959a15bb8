/** FNV-1a (32-bit): stable across isolates and deploys; for shard keys and ETags, never for secrets. */
export function fnv1a(text: string): number {
  let h = 0x811c9dc5;
  for (let i = 0; i < text.length; i++) {
    h ^= text.charCodeAt(i);
    h = Math.imul(h, 0x01000193);
  }
  return h >>> 0;
}

/** Hex SHA-256 of the UTF-8 text, or of its first `bytes` bytes (cache keys need no more than 16). */
export async function sha256Hex(text: string, bytes = 32): Promise<string> {
  const d = new Uint8Array(await crypto.subtle.digest('SHA-256', new TextEncoder().encode(text)));
  return Array.from(d.subarray(0, bytes), (b) => b.toString(16).padStart(2, '0')).join('');
}
