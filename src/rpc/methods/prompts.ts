/**
 * prompts/list and prompts/get. List pages come pre-serialized from the
 * listing layer (isolate, edge cache or KV: catalog/listing.ts) as RawJson,
 * so a list never re-encodes prompts; the modern era's cache hints are
 * spliced in front of the page. tools/list and tools/call (tools.ts) share
 * both paths.
 */
import { readArguments } from '../../catalog/arguments.js';
import type { Route, View } from '../../catalog/catalog.js';
import { listing, withHints } from '../../catalog/listing.js';
import type { Listing } from '../../catalog/listing-memo.js';
import type { CallFact } from '../../lib/record.js';
import { modernJson } from '../modern-result.js';
import { RawJson, type Params } from '../envelope.js';
import type { CallContext } from '../context.js';
import { translateCapabilityError } from './input-capabilities.js';
import { relayedParams } from './input-required.js';
import { getRemote, UpstreamMissingCapability } from './remote.js';
import { routeOf, warmRouteOf } from './route.js';

/** Synchronous when the page is already in this isolate (see catalog/listing.ts). */
export function listPrompts(params: Params, ctx: CallContext): RawJson | Promise<RawJson> {
  // The call context is a RequestScope as it is: nothing is allocated to ask.
  const page = listing(ctx, ctx.version, params?.cursor);
  return page instanceof Promise ? page.then((p) => listResult(p, ctx)) : listResult(page, ctx);
}

/** A list page as the era's result (any list kind): legacy as it is, modern with its hints, built once per page. */
export function listResult(page: Listing, ctx: CallContext): RawJson {
  if (ctx.era !== 'modern') return new RawJson(page.json);
  // Listing objects are stable per page in a warm isolate, so the modern form is built once per page.
  let modern = modernPages.get(page);
  if (!modern) modernPages.set(page, (modern = new RawJson(modernJson(withHints(page), ctx.version), true)));
  return modern;
}

const modernPages = new WeakMap<Listing, RawJson>();

/** Synchronous for a local prompt of a warm isolate's catalog, like a warm list: no promise on the hot path. */
export function getPrompt(params: Params, ctx: CallContext, fact: CallFact): Rendered | Promise<Rendered> {
  const warm = warmRouteOf(ctx, params?.name);
  if (warm) return renderPrompt(ctx, warm.catalog, warm.route, params);
  return routeOf(ctx, params?.name, fact).then(({ catalog, route }) => renderPrompt(ctx, catalog, route, params));
}

type Rendered = Record<string, unknown>;

/**
 * A prompt rendered for the caller, once its name is routed (route.ts): a local one here, at once
 * (it throws what is wrong with the arguments), an upstream one fetched (an input-required answer
 * relayed as it is). prompts/get and tools/call both render through this, so the two can never differ.
 */
export function renderPrompt(ctx: CallContext, view: View, route: Route, params: Params): Rendered | Promise<Rendered> {
  if (route.kind !== 'local') return renderRemote(ctx, route, params);
  ctx.record.cache = 'isolate';
  return view.get(params?.name, params?.arguments, ctx.version, ctx.cfg.limits);
}

async function renderRemote(
  ctx: CallContext,
  route: Extract<Route, { kind: 'remote' }>,
  params: Params,
): Promise<Rendered> {
  ctx.record.cache = 'upstream';
  // The same limits as a local prompt, before anything goes upstream.
  readArguments(params?.arguments, ctx.cfg.limits);
  const relayed = await relayedParams(ctx, route.origin, params);
  return getRemote(ctx, route.origin, params?.arguments, String(params?.name), relayed).catch((e: unknown) => {
    if (!(e instanceof UpstreamMissingCapability)) throw e;
    // Named as the client asked: an alias hides the upstream's own name.
    throw translateCapabilityError(ctx, { upstream: route.origin.upstream, name: String(params?.name) }, e);
  });
}
