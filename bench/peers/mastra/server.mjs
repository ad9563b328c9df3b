// The nearest peer of the bench: a Mastra agent with LibSQL memory (the last 20 messages of
// the thread as history, as the actor's history_limit) behind Mastra's own Hono server adapter
// (`@mastra/hono`, the routes `mastra dev` serves), on @hono/node-server like the actor.
// The model is the bench's mock OpenAI-compatible server (MOCK_MODEL_URL, its /v1 URL).
// Memory lives in `<DATA_DIR>/mastra.db`; the bench counts the rows of `mastra_messages` there.
// Run on Node >= 22.13 (Mastra's engines): the bench starts it with test/runtimes' Node 24.
import { join } from 'node:path';
import { createOpenAICompatible } from '@ai-sdk/openai-compatible';
import { serve } from '@hono/node-server';
import { Agent } from '@mastra/core/agent';
import { Mastra } from '@mastra/core/mastra';
import { MastraServer } from '@mastra/hono';
import { LibSQLStore } from '@mastra/libsql';
import { Memory } from '@mastra/memory';
import { Hono } from 'hono';

const modelUrl = process.env.MOCK_MODEL_URL;
const dataDir = process.env.DATA_DIR;
if (!modelUrl || !dataDir) throw new Error('MOCK_MODEL_URL and DATA_DIR must be set');

const storage = new LibSQLStore({ id: 'bench-storage', url: `file:${join(dataDir, 'mastra.db')}` });
const memory = new Memory({ storage, options: { lastMessages: 20, semanticRecall: false, workingMemory: { enabled: false } } });
const model = createOpenAICompatible({ name: 'mock', baseURL: modelUrl, apiKey: 'bench' }).chatModel('mock-model');
const agent = new Agent({ id: 'bench', name: 'bench', instructions: 'You are the bench agent.', model, memory });
const mastra = new Mastra({ agents: { bench: agent }, storage, logger: false });

const app = new Hono();
app.get('/ready', (c) => c.json({ status: 'ready' }));
const mastraServer = new MastraServer({ app, mastra });
await mastraServer.init();

const server = serve({ fetch: app.fetch, port: Number(process.env.PORT ?? 0), hostname: '127.0.0.1' }, (info) => {
  console.log(JSON.stringify({ event: 'actor_listening', runtime: 'node', port: info.port, url: `http://127.0.0.1:${info.port}` }));
});
for (const signal of ['SIGTERM', 'SIGINT']) process.once(signal, () => server.close(() => process.exit(0)));
