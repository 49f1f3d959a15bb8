/**
 * What a stream kind (the legacy GET stream, the modern listen stream) hands the socket bridge
 * (bridge.ts) and gets from it: its own framing and checks, and the client's side to write to.
 */

/** What a stream kind can do with the client's side. */
export interface ClientSide {
  write: (bytes: Uint8Array) => void;
  /** Ends the client's stream (and the socket). */
  end: () => void;
}

export interface BridgeOptions<F> {
  /** A new socket to the object; `reconnect` is true after a drop. A number ends the stream. */
  connect(reconnect: boolean): Promise<WebSocket | number>;
  onFrame(frame: F, client: ClientSide): void;
  /**
   * A frame waits for the promise this returns before onFrame sees it, and the frames after it wait
   * too, so order is kept (the Worker catching up with the catalog a change announces). Undefined:
   * no wait. The promise must not reject.
   */
  before?(frame: F): Promise<void> | undefined;
  keepaliveMs: number;
  /** Closes the stream on its own after this long (ms). */
  maxMs?: number;
  /** Asked at each keepalive: false ends the stream as `maxMs` does (lib/caller.ts credentialCheck). */
  stillValid?: () => boolean | Promise<boolean>;
  /** The client's request signal: its abort (the client went away) ends the stream at once. */
  clientGone?: AbortSignal | undefined;
  /** How long a client may take none of the bytes waiting for it before it is let go (default STALLED_MS). */
  stalledMs?: number;
  /** Asked at each keepalive (watch.ts): a generation the stream should have carried by now, or undefined. */
  lagging?: () => number | undefined;
  /** How long a lag may last before the socket is taken for lost and replaced (default: two keepalives). */
  lagGraceMs?: number;
}
