#!/usr/bin/env node
import { runCli } from './run-cli.js';

/** A JSON-lines logger on stderr when `LOG_LEVEL` is set; the runtime's logging is loaded only then. */
async function stderrLogger(level: string) {
  const { createLogger, parseLogLevel } = await import('../src/index.js');
  return createLogger({
    level: parseLogLevel(level),
    sink: (record) => process.stderr.write(`${JSON.stringify(record)}\n`),
  });
}

const logger = process.env.LOG_LEVEL ? await stderrLogger(process.env.LOG_LEVEL) : undefined;
process.exitCode = await runCli(process.argv.slice(2), logger ? { logger } : {});
