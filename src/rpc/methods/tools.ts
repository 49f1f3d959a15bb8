/**
 * tools/list and tools/call: the prompts mirrored as tools (docs/tools-mirror.md), for clients
 * that show no prompts. Served only with TOOLS_MIRROR on (dispatch.ts gates them).
 */
import type { CallContext } from '../context.js';
import type { Params } from '../envelope.js';
import { ErrorCode, RpcError } from '../errors.js';

export function listTools(_params: Params, _ctx: CallContext): unknown {
  throw new RpcError(ErrorCode.MethodNotFound, 'Method not found: tools/list');
}

export function callTool(_params: Params, _ctx: CallContext): unknown {
  throw new RpcError(ErrorCode.MethodNotFound, 'Method not found: tools/call');
}
