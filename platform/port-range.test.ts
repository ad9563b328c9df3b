import { createServer, type Server } from 'node:net';
import { afterEach, describe, expect, it } from 'vitest';
import { CliError, freeLocalPort } from '../cli/library.js';
import { PortRange } from './port-range.js';

const servers: Server[] = [];
afterEach(() => servers.splice(0).forEach((server) => server.close()));

function occupy(port: number): Promise<void> {
  const server = createServer();
  servers.push(server);
  return new Promise((resolve) => server.listen(port, '127.0.0.1', () => resolve()));
}

function refusal(run: () => unknown): CliError {
  try {
    run();
  } catch (error) {
    expect(error).toBeInstanceOf(CliError);
    return error as CliError;
  }
  throw new Error('expected a refusal');
}

describe('PortRange (--replica-ports)', () => {
  it('refuses a range that is not first-last with first <= last, from 1 to 65535', () => {
    for (const raw of ['9100', '9199-9100', '0-10', '9100-70000', 'a-b', '9100-', '']) {
      const error = refusal(() => new PortRange(raw));
      expect(error.code, raw).toBe('bad_usage');
      expect(error.message).toBe(
        `--replica-ports takes first-last, two port numbers from 1 to 65535 with first <= last (e.g. 9100-9199), got '${raw}'`,
      );
    }
    expect(new PortRange(' 9100 - 9102 ')).toMatchObject({ first: 9100, last: 9102, size: 3 });
  });

  it('hands out the lowest free port first, skips one in use, and takes back a released one', async () => {
    const first = await freeLocalPort();
    const range = new PortRange(`${first}-${first + 2}`);
    await occupy(first + 1);
    expect(await range.take()).toBe(first);
    expect(await range.take()).toBe(first + 2);
    range.release(first);
    expect(await range.take()).toBe(first);
  });

  it('refuses with port_in_use, naming the range, when every port is taken', async () => {
    const first = await freeLocalPort();
    await occupy(first);
    const range = new PortRange(`${first}-${first}`);
    const error = await range.take().catch((caught: unknown) => caught as CliError);
    expect(error).toBeInstanceOf(CliError);
    expect(error).toMatchObject({ status: 'failed', code: 'port_in_use' });
    expect((error as CliError).message).toBe(
      `every port of --replica-ports ${first}-${first} is taken (by the platform's replicas and service addresses, or by other programs): pass a wider or another range`,
    );
  });
});
