// Run as `node --import tsx test/reliability/support/dev-proxy-process.ts <actor port>`: the
// `actorkit dev` proxy alone in its own process, so a test can read its memory. Prints
// `{"port": …}` once it listens; each line on stdin is answered with `{"rss": …, "peak": …}`
// (bytes: now, and the largest seen, sampled every 10 ms).
import { startDevProxy } from '../../../cli/dev/dev-proxy.js';

const actorPort = Number(process.argv[2]);
const proxy = await startDevProxy({ port: actorPort, state: 'running', failure: '' }, { port: 0, host: '127.0.0.1' });
let peak = process.memoryUsage().rss;
setInterval(() => (peak = Math.max(peak, process.memoryUsage().rss)), 10).unref();
process.stdout.write(`${JSON.stringify({ port: proxy.port })}\n`);
process.stdin.setEncoding('utf8');
process.stdin.on('data', () => {
  const rss = process.memoryUsage().rss;
  peak = Math.max(peak, rss);
  process.stdout.write(`${JSON.stringify({ rss, peak })}\n`);
});
process.stdin.on('end', () => void proxy.close().then(() => process.exit(0)));
