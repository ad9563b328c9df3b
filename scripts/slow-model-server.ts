/**
 * A slow OpenAI-compatible model server on loopback, to rehearse runs by hand (docs/http-api.md,
 * "Runs"): every chat completion answers `word1 … wordN` (`WORDS`, default 20), one word every
 * `GAP_MS` (default 250), streamed for `stream: true`, whole after the same wait otherwise. The
 * reliability tests start the same server (`test/reliability/support/slow-model-server.ts`).
 *   PORT=9100 npx tsx scripts/slow-model-server.ts
 *   LLM_BASE_URL=http://127.0.0.1:9100/v1 LLM_MODEL=slow npm start
 */
import { startSlowModelServer } from '../test/reliability/support/slow-model-server.js';

const server = await startSlowModelServer(
  { words: Number(process.env.WORDS ?? 20), gapMs: Number(process.env.GAP_MS ?? 250) },
  Number(process.env.PORT ?? 9100),
);
console.log(`slow model server on ${server.baseUrl} (${server.pace.words} words, one every ${server.pace.gapMs} ms)`);
for (const signal of ['SIGTERM', 'SIGINT'] as const) process.once(signal, () => void server.close());
