/**
 * Reading a request body with a byte cap, for bodies whose size is not
 * known up front (chunked, or no Content-Length). Over the cap, the rest
 * of the body is drained before the caller answers, so the connection is
 * left clean for the next request.
 */
/** How much of an oversized body is read and dropped before giving up on it (then it is cancelled). */
const DRAIN_BYTES = 32 * 1_048_576;

async function drain(reader: ReadableStreamDefaultReader<Uint8Array>, budget: number): Promise<void> {
  for (let left = budget; left > 0;) {
    const { done, value } = await reader.read();
    if (done) return;
    left -= value.byteLength;
  }
  await reader.cancel().catch(() => undefined);
}

/**
 * Reads a body without a usable Content-Length (chunked), at most `max`
 * bytes. Over the limit the rest is read and dropped (up to DRAIN_BYTES)
 * before the 413 is thrown: a half-read request body (hono's bodyLimit
 * left it so) made the next request, from any client, stall or get a 503
 * under `wrangler dev`; cancelling it at once even took wrangler down.
 */
export async function readCapped(
  body: ReadableStream<Uint8Array>,
  max: number,
  over: () => Error,
): Promise<Uint8Array> {
  const reader = body.getReader();
  const chunks: Uint8Array[] = [];
  let size = 0;
  try {
    for (;;) {
      const { done, value } = await reader.read();
      if (done) break;
      size += value.byteLength;
      if (size > max) {
        await drain(reader, DRAIN_BYTES);
        throw over();
      }
      chunks.push(value);
    }
  } finally {
    reader.releaseLock();
  }
  const out = new Uint8Array(size);
  let at = 0;
  for (const c of chunks) {
    out.set(c, at);
    at += c.byteLength;
  }
  return out;
}
