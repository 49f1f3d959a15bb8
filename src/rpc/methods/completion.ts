/**
 * completion/complete for `ref/prompt`: ranks the argument's declared values.
 * Only prompts are completed: the skill resources have no templates to complete, so
 * `ref/resource` is invalid params.
 */
import { checkValue, readArguments } from '../../catalog/arguments.js';
import { clip, MAX_METHOD } from '../../lib/clip.js';
import type { CallFact } from '../../lib/record.js';
import { invalidParams } from '../errors.js';
import type { Params } from '../envelope.js';
import type { CallContext } from '../context.js';
import { completeRemote } from './remote.js';
import { routeOf } from './route.js';

export async function complete(params: Params, ctx: CallContext, fact: CallFact) {
  const ref = params?.ref as { type?: unknown; name?: unknown } | undefined;
  const arg = params?.argument as { name?: unknown; value?: unknown } | undefined;
  if (!ref || typeof ref !== 'object') throw invalidParams('ref is required');
  if (ref.type !== 'ref/prompt')
    throw invalidParams(
      `Unsupported completion ref type ${clip(String(JSON.stringify(ref.type)), MAX_METHOD)}; this server completes ref/prompt only`,
    );
  if (!arg || typeof arg !== 'object' || typeof arg.name !== 'string' || typeof arg.value !== 'string')
    throw invalidParams('argument must be {name: string, value: string}');
  checkValue(arg.name, arg.value, ctx.cfg.limits);
  const context = params?.context as { arguments?: unknown } | undefined;
  if (typeof context === 'object' && context !== null) readArguments(context.arguments, ctx.cfg.limits);
  const { catalog, route } = await routeOf(ctx, ref.name, fact);
  ctx.record.cache = route.kind === 'remote' ? 'upstream' : 'isolate';
  if (route.kind === 'remote') return completeRemote(ctx, route.origin, params as Record<string, unknown>);
  return { completion: catalog.complete(ref.name, arg.name, arg.value) };
}
