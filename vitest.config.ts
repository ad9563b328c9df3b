import { fileURLToPath } from 'node:url';
import { defineConfig } from 'vitest/config';

const source = (path: string) => fileURLToPath(new URL(path, import.meta.url));

export default defineConfig({
  resolve: {
    alias: [
      { find: /^actorkit$/, replacement: source('./src/index.ts') },
      { find: /^actorkit\/sdk$/, replacement: source('./src/sdk/index.ts') },
      { find: /^actorkit\/testing$/, replacement: source('./src/testing/index.ts') },
      { find: /^actorkit\/node$/, replacement: source('./src/adapter/node/index.ts') },
      { find: /^actorkit\/cli$/, replacement: source('./cli/index.ts') },
    ],
  },
  test: {
    include: ['src/**/*.test.ts', 'cli/**/*.test.ts', 'test/**/*.test.ts', 'examples/*/test/**/*.test.ts'],
    testTimeout: 30_000,
    hookTimeout: 60_000,
  },
});
