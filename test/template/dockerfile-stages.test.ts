import { describe, expect, it } from 'vitest';
import { parseDockerfileStages } from './dockerfile-stages.js';

describe('parseDockerfileStages', () => {
  it('reads stages and the steps the replay performs, in order, skipping image metadata', () => {
    const stages = parseDockerfileStages(
      [
        'ARG NODE_VERSION=20.19',
        'FROM node:${NODE_VERSION} AS deps',
        'WORKDIR /app',
        'COPY package.json package-lock.json* ./',
        'RUN npm ci \\',
        '    --omit=dev',
        'FROM node:${NODE_VERSION} AS runtime',
        'ENV A=1 \\',
        '    B=two',
        'COPY --from=deps --chown=node:node /app/node_modules ./node_modules',
        'USER node',
        'EXPOSE 8080',
        'CMD ["node", "main.js"]',
      ].join('\n'),
    );
    expect(stages).toEqual([
      {
        name: 'deps',
        steps: [
          { kind: 'workdir', line: 3, path: '/app' },
          { kind: 'copy', line: 4, sources: ['package.json', 'package-lock.json*'], destination: './' },
          { kind: 'run', line: 5, command: 'npm ci      --omit=dev' },
        ],
      },
      {
        name: 'runtime',
        steps: [
          { kind: 'env', line: 8, values: { A: '1', B: 'two' } },
          { kind: 'copy', line: 10, from: 'deps', sources: ['/app/node_modules'], destination: './node_modules' },
        ],
        cmd: ['node', 'main.js'],
      },
    ]);
  });

  it.each([
    ['FROM node:20\nRUN true\n', 'Dockerfile line 1: FROM has no `AS <name>`'],
    ['FROM node:20 AS a\nENTRYPOINT ["node"]\n', 'Dockerfile line 2: ENTRYPOINT is not supported'],
    ['FROM node:20 AS a\nCMD node main.js\n', 'Dockerfile line 2: CMD is not in exec form'],
    ['FROM node:20 AS a\nRUN ["npm", "ci"]\n', 'Dockerfile line 2: RUN is not a plain shell-form command'],
    ['FROM node:20 AS a\nCOPY --link src ./src\n', 'Dockerfile line 2: COPY has the flag --link'],
    ['FROM node:20 AS a\nCOPY ./\n', 'Dockerfile line 2: COPY needs a source and a destination'],
    ['WORKDIR /app\nFROM node:20 AS a\n', 'Dockerfile line 1: WORKDIR comes before the first FROM'],
  ])('refuses what it cannot replay faithfully: %j', (text, message) => {
    expect(() => parseDockerfileStages(text)).toThrow(message);
  });
});
