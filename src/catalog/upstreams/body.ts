/**
 * Reading an upstream's JSON reply with a byte cap. The prompt-count and
 * field caps (sanitize.ts) only apply once a reply is parsed; this bounds
 * what is read before that: past MAX_REPLY_BYTES the body is cancelled
 * (the connection is dropped, nothing more is read) and the reply refused
 * as `too_large`. A Worker's memory then holds at most the cap per reply,
 * however large or endless the upstream's answer.
 */
import { UpstreamError } from './errors.js';

/** 4 MiB: a full page of 1,000 prompts with long descriptions fits; a 45 MB listing does not. */
export const MAX_REPLY_BYTES = 4 * 1024 * 1024;

export async function readCapped(res: Response, max = MAX_REPLY_BYTES): Promise<string> {
  const declared = Number(res.headers.get('content-length') ?? NaN);
  if (declared > max) {
    await res.body?.cancel().catch(() => undefined);
    throw tooLarge(max);
  }
  if (!res.body) return '';
  // Workers' types leave a body's chunk type `any`; a fetch body is bytes.
  const reader = (res.body as ReadableStream<Uint8Array>).getReader();
  const decoder = new TextDecoder();
  let text = '';
  let total = 0;
  try {
    for (;;) {
      const { done, value } = await reader.read();
      if (done) return text + decoder.decode();
      total += value.byteLength;
      if (total > max) throw tooLarge(max);
      text += decoder.decode(value, { stream: true });
    }
  } finally {
    await reader.cancel().catch(() => undefined);
  }
}

const tooLarge = (max: number) =>
  new UpstreamError('protocol', `upstream reply passed ${max} bytes`, undefined, undefined, 'too_large');
