// Run as `node --import tsx test/reliability/support/approval-replica-process.ts`: one actor
// replica in its own process, so a test can kill it (SIGKILL): the test actor with `mail_send`
// (it needs approval) on the store `DATABASE_URL` names, its environment the process's.
// Prints `{"port": …}` once it listens on 127.0.0.1.
import { serve } from '../../../src/adapter/node/index.js';
import { silentLogger } from '../../../src/log/logger.js';
import { openStore } from '../../../src/store/open-store.js';
import { createTestActor } from '../../../src/testing/create-test-actor.js';
import { mailSendTool } from './mail-approval-tool.js';

const env = Object.fromEntries(
  Object.entries(process.env).filter((entry): entry is [string, string] => entry[1] !== undefined),
);
const app = await createTestActor({
  env,
  tools: [mailSendTool()],
  store: await openStore({ url: env.DATABASE_URL, logger: silentLogger }),
});
const handle = await serve(app, { port: 0, hostname: '127.0.0.1' });
process.stdout.write(`${JSON.stringify({ port: handle.port })}\n`);
