import { describe, expect, it } from 'vitest';
import { bunRequestBindings } from './bun/bun-request-bindings.js';
import { denoRequestBindings } from './deno/deno-request-bindings.js';
import { NodeRequestBindings } from './node/node-request-bindings.js';
import { readPackageFile } from './read-package-file.js';

describe('readPackageFile: the files of installed packages, for /docs (issue #29 item 8)', () => {
  it('reads a file of an installed package, resolved from actorkit', async () => {
    expect(await readPackageFile('swagger-ui-dist/swagger-ui.css')).toContain('.swagger-ui');
  });

  it('says undefined for a package or a file that is not installed', async () => {
    expect(await readPackageFile('no-such-package-of-actorkit/index.js')).toBeUndefined();
    expect(await readPackageFile('swagger-ui-dist/no-such-file.js')).toBeUndefined();
  });

  it('is offered by the bindings of every adapter', async () => {
    const bindings = [
      new NodeRequestBindings({ rawHeaders: [], socket: {} as never }),
      bunRequestBindings({ requestIP: () => null }, new Request('http://x/')),
      denoRequestBindings(undefined),
    ];
    for (const binding of bindings)
      expect(await binding.readPackageFile?.('swagger-ui-dist/package.json')).toContain('"name": "swagger-ui-dist"');
  });
});
