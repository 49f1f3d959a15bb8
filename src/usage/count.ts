/**
 * Usage counting (docs/observability.md, "Usage"): reads a finished request's record and adds it to
 * this isolate's tally; flush.ts takes the tally to the UsageStore in the background. On the warm
 * path a counted call allocates nothing (tally.ts); a request with no counted call costs a loop.
 * Outcomes and error classes are `error.type`, as the log line names them (errorTypeOf).
 */
import { callErrorType, errorTypeOf, TOOL_ERROR, type CallFact, type Outcome } from '../lib/record.js';
import type { RequestScope } from '../lib/scope.js';
import { ErrorCode } from '../rpc/errors.js';
import { servedCatalog } from '../catalog/store.js';
import { arm, armIfKept, tally } from './flush.js';
import { HOUR_MS } from './store.js';

const GET = 'prompts/get';
const COMPLETE = 'completion/complete';
/** The mirror's call of a prompt as a tool (docs/tools-mirror.md): a use of the prompt, like a get. */
const TOOLS_CALL = 'tools/call';
/** The prompt of a call that did not show its name to be a prompt the caller may see. */
export const UNKNOWN_PROMPT = '(unknown)';

/**
 * Codes a call about a prompt can end with once its name was routed: arguments the prompt refuses
 * (-32602, which is also the answer for a name nobody has), its upstream's own failure (-32603), a
 * capability its upstream asked for (-32021). Every other code, and any code of a call never handed
 * to its method (a bad envelope's -32602 included), is a refusal of the request before any name was
 * looked at (headers, envelope, version, session, method, parse), whatever the name said.
 */
const AFTER_ROUTING: ReadonlySet<number> = new Set([
  ErrorCode.InvalidParams,
  ErrorCode.InternalError,
  ErrorCode.MissingRequiredClientCapability,
]);

/**
 * The prompt a call is counted under. Names are caller input, and each one a row kept for months:
 * a name is a row only when the catalog that routed the call lists it in the caller's view, and the
 * call succeeded or failed after routing. Everything else is counted as one.
 */
function countedName(scope: RequestScope, call: CallFact, ok: boolean): string {
  const { prompt, errorCode: code } = call;
  // No name at all (a get without one, a completion of a resource template): one row, as a made-up name is.
  if (prompt === undefined) return UNKNOWN_PROMPT;
  if (!ok && (!call.dispatched || code === undefined || !AFTER_ROUTING.has(code))) return UNKNOWN_PROMPT;
  // Routing named it from a view the isolate may not serve yet (one merged for a never-listed upstream).
  if (call.usageKey !== undefined) return call.usageKey ?? UNKNOWN_PROMPT;
  const view = servedCatalog(scope.env.PROMPTS)?.viewFor(scope.principal);
  // Listed names only, a call that succeeded included: an upstream may answer names it never listed
  // (matched loosely, made on the fly), and every made-up name would be a row. A name several
  // owners share is counted per owner served (view-lookup.ts usageKey).
  return view?.usageKey(prompt) ?? UNKNOWN_PROMPT;
}

/**
 * Counts one finished request. A JSON-RPC error app.onError answered before any call was read (a
 * body that does not parse: -32700) still counts by the code it sent (`record.answeredCode`).
 */
export function countUsage(scope: RequestScope, outcome: Outcome): void {
  if (!scope.cfg.usage) return;
  const record = scope.record;
  const hour = Math.floor(record.start / HOUR_MS);
  const status = outcome.status;
  let errors = 0;
  let counted = false;
  for (const call of record.calls) {
    const code = call.errorCode;
    if (code !== undefined) {
      tally.error(hour, String(code));
      errors += 1;
    }
    if (call.method !== GET && call.method !== COMPLETE && call.method !== TOOLS_CALL) continue;
    const type = callErrorType(call, status);
    // A tool execution error is a failure, but answered with a result after routing: under its name.
    const toolError = type === TOOL_ERROR;
    if (toolError) {
      tally.error(hour, TOOL_ERROR);
      errors += 1;
    }
    const client = record.client;
    const prompt = countedName(scope, call, type === undefined || toolError);
    tally.add(hour, call.method, prompt, client?.name, client?.version, record.era ?? 'unknown', type ?? 'ok');
    counted = true;
  }
  // A failed request with no failed call read (a body that does not parse, a refusal, a 404 route).
  if (errors === 0) {
    const type = errorTypeOf(record.answeredCode, status);
    if (type !== undefined) {
      tally.error(hour, type);
      errors = 1;
    }
  }
  if (counted || errors > 0) arm(scope.env, scope.cfg.usageFlushMs, scope.waitUntil);
  else armIfKept(scope.env, scope.cfg.usageFlushMs, scope.waitUntil);
}

/** A request that counts nothing (a page, /status, /admin) still sends counts a failed flush kept. */
export function sendKept(scope: RequestScope): void {
  if (scope.cfg.usage) armIfKept(scope.env, scope.cfg.usageFlushMs, scope.waitUntil);
}
