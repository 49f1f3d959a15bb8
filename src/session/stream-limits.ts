/**
 * What a registry shard admits, as the Worker's configuration says: at most SHARD_MAX_STREAMS
 * streams in all (past it 503: the shard's memory holds every socket when it wakes), and at most
 * SHARD_MAX_CLIENT_STREAMS of them from one client (past it 429), so that one client cannot fill
 * a shard that serves everyone. A client is its address, counted as the rate limits count it
 * (lib/client-address.ts): never a token. Legacy streams sit at their session's shard and listen
 * streams at a random one, so a client's streams spread over every shard: the per-shard share
 * bounds its total too (at most REGISTRY_SHARDS times it).
 *
 * The Worker sends the limits with each stream's upgrade (headers); the shard enforces them with
 * its sockets' tags (shard-admission.ts), so no count is stored and a closed socket frees its place.
 */
import { clientKey } from '../lib/client-address.js';
import type { RequestScope } from '../lib/scope.js';
import { STREAM_CAP_HEADER, STREAM_CLIENT_CAP_HEADER, STREAM_CLIENT_HEADER } from './events.js';

export interface StreamLimits {
  /** SHARD_MAX_STREAMS. */
  readonly maxStreams: number;
  /** The client's address key. */
  readonly client: string;
  /** SHARD_MAX_CLIENT_STREAMS. */
  readonly maxClientStreams: number;
}

/** The limits a stream opened by this request is held to. */
export const streamLimits = (t: RequestScope): StreamLimits => ({
  maxStreams: t.cfg.shardMaxStreams,
  client: clientKey(t.header('cf-connecting-ip')),
  maxClientStreams: t.cfg.shardMaxClientStreams,
});

/** The upgrade request's headers that carry them to the shard. */
export const limitHeaders = (l: StreamLimits): Record<string, string> => ({
  [STREAM_CAP_HEADER]: String(l.maxStreams),
  [STREAM_CLIENT_HEADER]: l.client,
  [STREAM_CLIENT_CAP_HEADER]: String(l.maxClientStreams),
});

/** A shard refused a stream because its client holds as many as it may there (429). */
export class TooManyStreamsError extends Error {
  constructor() {
    super('this client holds as many open streams as it may at one registry shard');
  }
}
