// The floors the full stack is measured against: bare Hono answering GET /health and
// POST /agent/invoke with bodies of the same shape and size as the actor's, and nothing else
// (no middleware, no validation, no store, no model) — or, as the `echo` floor, answering the
// invoke with the parsed request itself (no reply-shape work at all). Plain JavaScript so Node
// runs it without a build step or a loader.
import { Hono } from 'hono';

const OFFLINE_REPLY = '[offline model] No language model is configured for this actor, so this is a fixed local reply. You said: ';

/**
 * Builds the bare Hono app of the bench.
 * @param {'shaped' | 'echo'} [invoke] `shaped` (default): the invoke answers a reply of the
 *   actor's shape and size; `echo`: it answers the parsed request body as it came
 * @returns {Hono}
 */
export function createBareApp(invoke = 'shaped') {
  const app = new Hono();
  const startedAt = Date.now();
  const instanceId = crypto.randomUUID();
  app.get('/health', (c) =>
    c.json(
      {
        status: 'ok',
        version: '0.1.0',
        instance_id: instanceId,
        uptime_s: Math.floor((Date.now() - startedAt) / 1000),
        checks: { database: { status: 'pass', output: 'sqlite: reachable', kind: 'sqlite' } },
      },
      200,
      { 'Cache-Control': 'no-store' },
    ),
  );
  app.get('/ready', (c) => c.json({ status: 'ready', checks: {} }, 200, { 'Cache-Control': 'no-store' }));
  if (invoke === 'echo') {
    app.post('/agent/invoke', async (c) => c.json(await c.req.json()));
    return app;
  }
  app.post('/agent/invoke', async (c) => {
    const request = await c.req.json();
    const content = `${OFFLINE_REPLY}${request.message}`;
    return c.json({
      id: `inv_${crypto.randomUUID()}`,
      session_id: request.session_id,
      status: 'completed',
      message: { id: `msg_${crypto.randomUUID()}`, role: 'assistant', content },
      tool_calls: [],
      finish_reason: 'stop',
      usage: { input_tokens: 1, output_tokens: 20, total_tokens: 21 },
      model: 'offline',
      created_at: new Date().toISOString(),
      latency_ms: 0,
    });
  });
  return app;
}

/**
 * The invoke answer a bare server's command line asks for: `echo` as its first argument, else `shaped`.
 * @param {readonly string[]} argv the process's arguments
 * @returns {'shaped' | 'echo'}
 */
export function invokeKind(argv) {
  return argv[2] === 'echo' ? 'echo' : 'shaped';
}

/**
 * Prints the line the bench waits for (the actor's `actor_listening` log event, so
 * test/contract/spawn-actor.ts starts bare servers and actors alike).
 * @param {string} runtime
 * @param {number} port
 */
export function announceListening(runtime, port) {
  console.log(JSON.stringify({ event: 'actor_listening', runtime, port, url: `http://127.0.0.1:${port}` }));
}
