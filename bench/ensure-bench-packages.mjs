// Makes sure the bench-only package folders are installed: bench/peers/mastra (the Mastra
// agent server of the peer comparison) and bench/drivers (better-sqlite3 for
// bench/turn-storage-limit.ts), with test/runtimes' Node 24 (Mastra's engines ask for
// Node >= 22.13). Called by the root `prebench`, after test/runtimes/ensure-runtimes.mjs.
// Kept out of the root project so actorkit's own dependencies do not grow.
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { ensureFolderPackages } from '../test/runtimes/ensure-folder-packages.mjs';

const BENCH_DIR = dirname(fileURLToPath(import.meta.url));
ensureFolderPackages([join(BENCH_DIR, 'peers', 'mastra'), join(BENCH_DIR, 'drivers')], 'bench');
