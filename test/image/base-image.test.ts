import { randomUUID } from 'node:crypto';
import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { BASE_IMAGE, imageEnginesReady, runCommand, runContainer, useImageWorkspace } from './support/index.js';

/** A tiny server: answers what the build put in the image, counts visits in the /data volume, stops cleanly on SIGTERM. */
const PROBE_SERVER = `const fs = require('node:fs');
const http = require('node:http');
const server = http.createServer((request, response) => {
  fs.appendFileSync('/data/visits', request.url + '\\n');
  response.setHeader('content-type', 'application/json');
  response.end(JSON.stringify({
    greeting: fs.readFileSync('greeting.txt', 'utf8').trim(),
    valibot: fs.readFileSync('/valibot-version', 'utf8').trim(),
    uid: process.getuid(),
    name: process.env.PROBE_NAME,
    visits: fs.readFileSync('/data/visits', 'utf8').split('\\n').filter(Boolean).length,
  }));
});
server.listen(Number(process.env.PORT), () => console.log('probe listening on ' + process.env.PORT));
process.on('SIGTERM', () => {
  console.log('probe stopping');
  server.close(() => process.exit(0));
  server.closeAllConnections();
});
`;

/** The build context: FROM the stand-in by its short name, a RUN step that asks the npm registry, COPY, a non-root user. */
function writeProbeContext(dir: string, greeting: string): void {
  mkdirSync(dir, { recursive: true });
  writeFileSync(join(dir, 'server.js'), PROBE_SERVER);
  writeFileSync(join(dir, 'greeting.txt'), `${greeting}\n`);
  writeFileSync(
    join(dir, 'Dockerfile'),
    `FROM node:20.19-bookworm-slim
RUN echo "build ${greeting}" && npm view valibot version > /valibot-version
WORKDIR /app
COPY server.js greeting.txt ./
RUN mkdir /data && chown node:node /data
USER node
ENV PORT=8080
CMD ["node", "server.js"]
`,
  );
}

interface ProbeAnswer {
  readonly greeting: string;
  readonly valibot: string;
  readonly uid: number;
  readonly name: string;
  readonly visits: number;
}

describe.runIf(imageEnginesReady())('the local node:20.19-bookworm-slim stand-in and the loopback registry', () => {
  const workspace = useImageWorkspace('actorkit-image-base-');
  const run = randomUUID().slice(0, 8);

  it('runs Node 20.19 and npm as the user node (uid 1000, gid 1000, home /home/node)', async () => {
    const output = await runCommand(
      'podman',
      [
        'run',
        '--rm',
        '--user',
        'node',
        BASE_IMAGE,
        'sh',
        '-c',
        'node --version; npm --version; id -u; id -g; echo "$HOME"',
      ],
      { env: workspace.env },
    );
    const [node, npm, uid, gid, home] = output.trim().split('\n');
    expect(node).toMatch(/^v20\.19\.\d+$/);
    expect(npm).toMatch(/^10\.\d+\.\d+$/);
    expect([uid, gid, home]).toEqual(['1000', '1000', '/home/node']);
  });

  it.each(['podman', 'buildah'])(
    '%s builds FROM it (a RUN step reaches the npm registry), pushes to the loopback registry; pulled back, the image serves, keeps its volume across a restart and stops on SIGTERM',
    async (engine) => {
      const { dir, registry, env } = workspace;
      const name = `base-image-probe-${run}`;
      const tag = `${registry.host}/${name}:${engine}`;
      const volume = `${name}-${engine}-data`;
      const context = join(dir, `context-${engine}`);
      writeProbeContext(context, `hello from ${engine} ${run}`);
      workspace.cleanup(() => runCommand('podman', ['rmi', '--force', '--ignore', tag], { env }));
      workspace.cleanup(() => runCommand('podman', ['volume', 'rm', '--force', volume], { env }));

      await runCommand(engine, ['build', '-f', join(context, 'Dockerfile'), '-t', tag, context], {
        env,
        timeoutMs: 300_000,
      });
      await runCommand(engine, ['push', tag], { env, timeoutMs: 300_000 });
      const tags = (await (await fetch(`${registry.url}/v2/${name}/tags/list`)).json()) as { tags: string[] };
      expect(tags.tags).toContain(engine);

      await runCommand('podman', ['rmi', '--force', tag], { env });
      await expect(runCommand('podman', ['image', 'exists', tag], { env })).rejects.toThrow(/exited with 1/);
      await runCommand('podman', ['pull', tag], { env, timeoutMs: 300_000 });

      const container = await runContainer({
        image: tag,
        engineEnv: env,
        port: 8080,
        environment: { PROBE_NAME: engine },
        volumes: [{ source: volume, target: '/data' }],
      });
      try {
        const first = (await (await container.waitForHttp('/hello', { timeoutMs: 30_000 })).json()) as ProbeAnswer;
        expect(first).toMatchObject({ greeting: `hello from ${engine} ${run}`, uid: 1000, name: engine, visits: 1 });
        expect(first.valibot).toMatch(/^\d+\.\d+\.\d+/);

        const stopped = await container.stop(10);
        expect(stopped.exitCode).toBe(0);
        expect(stopped.elapsedMs).toBeLessThan(10_000);
        await container.start();
        const second = (await (await container.waitForHttp('/hello', { timeoutMs: 30_000 })).json()) as ProbeAnswer;
        expect(second.visits).toBe(2);
        expect(await container.logs()).toMatch(
          /probe listening on 8080[\s\S]*probe stopping[\s\S]*probe listening on 8080/,
        );
      } finally {
        await container.remove();
      }
    },
    600_000,
  );
});
