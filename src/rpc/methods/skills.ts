/**
 * skills/list and skills/get (the Skills extension, SEP-2640; docs/skills.md). Served only with
 * SKILLS on (dispatch.ts gates them).
 */
import type { CallContext } from '../context.js';
import type { Params } from '../envelope.js';
import { ErrorCode, RpcError } from '../errors.js';

export function listSkills(_params: Params, _ctx: CallContext): unknown {
  throw new RpcError(ErrorCode.MethodNotFound, 'Method not found: skills/list');
}

export function getSkill(_params: Params, _ctx: CallContext): unknown {
  throw new RpcError(ErrorCode.MethodNotFound, 'Method not found: skills/get');
}
