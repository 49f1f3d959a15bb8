/**
 * One Chrome DevTools protocol connection to a Worker's isolate, through workerd's inspector
 * (Miniflare's `inspectorPort`): `send(method, params)` resolves the method's result.
 */
import WebSocket from 'ws';

export async function inspect(port, worker) {
  const targets = await (await fetch(`http://127.0.0.1:${port}/json`)).json();
  const target = targets.find((t) => t.id.endsWith(`:${worker}`));
  if (!target) throw new Error(`no inspector target for ${worker}: ${targets.map((t) => t.id).join(', ')}`);
  const ws = new WebSocket(target.webSocketDebuggerUrl);
  await new Promise((ok, fail) => (ws.once('open', ok), ws.once('error', fail)));
  let next = 1;
  const waiting = new Map();
  ws.on('message', (data) => {
    const msg = JSON.parse(String(data));
    const w = waiting.get(msg.id);
    if (!w) return;
    waiting.delete(msg.id);
    if (msg.error) w.fail(new Error(JSON.stringify(msg.error)));
    else w.ok(msg.result);
  });
  const send = (method, params = {}) =>
    new Promise((ok, fail) => {
      const id = next++;
      waiting.set(id, { ok, fail });
      ws.send(JSON.stringify({ id, method, params }));
    });
  return { send, close: () => ws.close() };
}
