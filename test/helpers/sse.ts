/**
 * Reads an SSE response frame by frame, the way a client sees it. Shared by
 * the workerd tests and the Node end-to-end tests.
 *
 * The read deadlines use the timers captured when this module loads, so a
 * test that fakes the Worker's clock (keepalives, listen lifetimes) still
 * gets real bounds on its reads. The bounds only matter when an expected
 * frame never comes: they are generous, so a loaded machine is not a failure.
 */
const realSetTimeout = globalThis.setTimeout.bind(globalThis);
const realClearTimeout = globalThis.clearTimeout.bind(globalThis);
const DEFAULT_MS = 10_000;
export interface SseFrame {
  id?: string;
  event?: string;
  data?: string;
  retry?: number;
  comment?: string;
}

/** An open SSE stream, read frame by frame. */
export interface EventStream {
  response: Response;
  /** Resolves with the next frame (comments included), or rejects after `ms`. */
  next(ms?: number): Promise<SseFrame>;
  /** The next frame that carries data, skipping comments, retry hints and priming events. */
  nextMessage(ms?: number): Promise<{ id?: string; message: any }>;
  /** True once the server has closed the stream. */
  ended(ms?: number): Promise<boolean>;
  /** Every data message until the server closes the stream (throws if it does not close within `ms`). */
  rest(ms?: number): Promise<{ id?: string; message: any }[]>;
  close(): Promise<void>;
}

export function readEvents(response: Response): EventStream {
  if (!response.body) throw new Error(`no stream: HTTP ${response.status}`);
  const reader = response.body.pipeThrough(new TextDecoderStream()).getReader();
  let buf = '';
  let done = false;
  const frames: SseFrame[] = [];
  const parse = () => {
    let i;
    while ((i = buf.indexOf('\n\n')) >= 0) {
      const block = buf.slice(0, i);
      buf = buf.slice(i + 2);
      const f: SseFrame = {};
      for (const line of block.split('\n')) {
        if (line.startsWith(':')) f.comment = line.slice(1).trim();
        else if (line.startsWith('id:')) f.id = line.slice(3).trim();
        else if (line.startsWith('event:')) f.event = line.slice(6).trim();
        else if (line.startsWith('retry:')) f.retry = Number(line.slice(6));
        else if (line.startsWith('data:'))
          f.data = (f.data === undefined ? '' : f.data + '\n') + line.slice(5).trimStart();
      }
      frames.push(f);
    }
  };
  const pull = async (ms: number): Promise<boolean> => {
    if (done) return false;
    let timer: ReturnType<typeof setTimeout> | undefined;
    const timeout = new Promise<never>(
      (_, rej) => (timer = realSetTimeout(() => rej(new Error(`no SSE frame within ${ms} ms`)), ms)),
    );
    try {
      const r = await Promise.race([reader.read(), timeout]);
      if (r.done) {
        done = true;
        return false;
      }
      buf += r.value;
      parse();
      return true;
    } finally {
      if (timer !== undefined) realClearTimeout(timer);
    }
  };
  const next = async (ms = DEFAULT_MS): Promise<SseFrame> => {
    const deadline = Date.now() + ms;
    while (frames.length === 0) {
      if (!(await pull(Math.max(1, deadline - Date.now())))) throw new Error('stream ended');
    }
    return frames.shift()!;
  };
  return {
    response,
    next,
    async nextMessage(ms = DEFAULT_MS) {
      const deadline = Date.now() + ms;
      for (;;) {
        const f = await next(Math.max(1, deadline - Date.now()));
        if (f.data) return { id: f.id, message: JSON.parse(f.data) };
      }
    },
    async ended(ms = DEFAULT_MS) {
      const deadline = Date.now() + ms;
      try {
        while (await pull(Math.max(1, deadline - Date.now()))) frames.length = 0;
        return true;
      } catch {
        return false;
      }
    },
    async rest(ms = DEFAULT_MS) {
      const deadline = Date.now() + ms;
      const out: { id?: string; message: any }[] = [];
      for (;;) {
        let f: SseFrame;
        try {
          f = await next(Math.max(1, deadline - Date.now()));
        } catch (e) {
          if ((e as Error).message === 'stream ended') return out;
          throw e;
        }
        if (f.data) out.push({ id: f.id, message: JSON.parse(f.data) });
      }
    },
    async close() {
      await reader.cancel().catch(() => {});
    },
  };
}
