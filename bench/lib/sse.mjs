/**
 * Server-Sent Events parsing for the bench's clients: the line rules of test/helpers/sse.ts
 * (comment, id, event, retry, multi-line data), fed chunk by chunk so a caller can timestamp
 * the chunk a frame arrived in (fanout), or given a whole body (an SSE JSON-RPC reply).
 */

/** One event block (the text between blank lines) as { id?, event?, data?, retry?, comment? }. */
export function parseFrame(block) {
  const f = {};
  for (const line of block.split('\n')) {
    if (line.startsWith(':')) f.comment = line.slice(1).trim();
    else if (line.startsWith('id:')) f.id = line.slice(3).trim();
    else if (line.startsWith('event:')) f.event = line.slice(6).trim();
    else if (line.startsWith('retry:')) f.retry = Number(line.slice(6));
    else if (line.startsWith('data:')) f.data = (f.data === undefined ? '' : `${f.data}\n`) + line.slice(5).trimStart();
  }
  return f;
}

/** An incremental parser: `push(chunk)` returns the frames the chunk completed. */
export function createSseParser() {
  let buf = '';
  return {
    push(chunk) {
      buf += chunk;
      const frames = [];
      let i;
      while ((i = buf.indexOf('\n\n')) >= 0) {
        frames.push(parseFrame(buf.slice(0, i)));
        buf = buf.slice(i + 2);
      }
      return frames;
    },
  };
}

/** The JSON messages of a whole SSE body (frames with data; priming events skipped). */
export const sseMessages = (text) =>
  createSseParser()
    .push(`${text}\n\n`)
    .filter((f) => f.data)
    .map((f) => JSON.parse(f.data));
