/**
 * resources/list, resources/templates/list and resources/read: the skills' files as `skill://`
 * resources (docs/skills.md). Served only with SKILLS on (dispatch.ts gates them).
 */
import type { CallContext } from '../context.js';
import type { Params } from '../envelope.js';
import { ErrorCode, RpcError } from '../errors.js';

export function listResources(_params: Params, _ctx: CallContext): unknown {
  throw new RpcError(ErrorCode.MethodNotFound, 'Method not found: resources/list');
}

export function listResourceTemplates(_params: Params, _ctx: CallContext): unknown {
  throw new RpcError(ErrorCode.MethodNotFound, 'Method not found: resources/templates/list');
}

export function readResource(_params: Params, _ctx: CallContext): unknown {
  throw new RpcError(ErrorCode.MethodNotFound, 'Method not found: resources/read');
}
