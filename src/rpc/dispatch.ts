/**
 * Method table and the per-message call: params in, result or JSON-RPC
 * error out. Era-independent: the legacy entry (and later the modern one)
 * decides transport concerns, this decides what a method means.
 */
import { LookupError } from '../catalog/errors.js';
import type { CallContext, Handler } from './context.js';
import { errorJson, ErrorCode, RpcError, toRpcError } from './errors.js';
import { resultMessage, type Message } from './envelope.js';
import { complete } from './methods/completion.js';
import { getPrompt, listPrompts } from './methods/prompts.js';
import { ping, setLevel } from './methods/utility.js';

const METHODS: Record<string, Handler> = {
  ping,
  'prompts/list': listPrompts,
  'prompts/get': getPrompt,
  'completion/complete': complete,
  'logging/setLevel': setLevel,
};

function asRpcError(e: unknown, method: string): RpcError {
  if (e instanceof LookupError) return new RpcError(ErrorCode.InvalidParams, e.message, e.detail);
  if (!(e instanceof RpcError)) console.error(JSON.stringify({ msg: 'method failed', method, error: String(e), stack: (e as Error)?.stack }));
  return toRpcError(e);
}

/** Runs one request and returns its JSON-RPC reply as a string. */
export async function call(msg: Extract<Message, { kind: 'request' }>, ctx: CallContext): Promise<string> {
  const handler = Object.hasOwn(METHODS, msg.method) ? METHODS[msg.method] : undefined;
  if (!handler) return errorJson(msg.id, new RpcError(ErrorCode.MethodNotFound, `Method not found: ${msg.method}`));
  try {
    return resultMessage(msg.id, await handler(msg.params, ctx));
  } catch (e) {
    return errorJson(msg.id, asRpcError(e, msg.method));
  }
}
