#!/usr/bin/env node
import { createLogger, parseLogLevel } from '../src/log/logger.js';
import { runCli } from './run-cli.js';

const logger = process.env.LOG_LEVEL
  ? createLogger({
      level: parseLogLevel(process.env.LOG_LEVEL),
      sink: (record) => process.stderr.write(`${JSON.stringify(record)}\n`),
    })
  : undefined;
process.exitCode = await runCli(process.argv.slice(2), logger ? { logger } : {});
