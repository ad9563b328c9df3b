import { createHash } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { listenOnLoopback, type LoopbackServer } from '../../surfaces/loopback.js';

/** One package the fake registry serves itself: its manifest and its `npm pack` tarball. */
export interface ServedPackage {
  /** The package.json of the packed package (name, version, dependencies, engines, bin…). */
  readonly manifest: { readonly name: string; readonly version: string } & Record<string, unknown>;
  /** Path of the `.tgz` that `npm pack` wrote. */
  readonly tarball: string;
}

/**
 * Starts an npm registry on loopback that serves `served` itself (packument and tarball, with
 * its sha512 integrity) and answers every other request with a 302 to the same path at
 * `upstream` (the real registry), so `npm install` and `npm ci` resolve the served package as
 * if it were published and everything else as usual.
 * @param served the package to serve, e.g. `actorkit` from `npm pack` of this checkout
 * @param upstream the real registry, e.g. `https://registry.npmjs.org/`
 */
export async function startFakeNpmRegistry(served: ServedPackage, upstream: string): Promise<LoopbackServer> {
  const bytes = readFileSync(served.tarball);
  const { name, version } = served.manifest;
  const tarballPath = `/${name}/-/${name}-${version}.tgz`;
  let packument = '';
  const server = await listenOnLoopback(function fakeRegistry(request, response) {
    const path = (request.url ?? '/').split('?')[0];
    if (path === `/${name}`) {
      response.writeHead(200, { 'content-type': 'application/json' }).end(packument);
    } else if (path === tarballPath) {
      response
        .writeHead(200, { 'content-type': 'application/octet-stream', 'content-length': bytes.length })
        .end(bytes);
    } else {
      response.writeHead(302, { location: new URL((request.url ?? '/').replace(/^\//, ''), upstream).href }).end();
    }
  });
  const { scripts: _scripts, devDependencies: _devDependencies, files: _files, ...published } = served.manifest;
  packument = JSON.stringify({
    name,
    'dist-tags': { latest: version },
    versions: {
      [version]: {
        ...published,
        dist: {
          tarball: `${server.url}${tarballPath}`,
          integrity: `sha512-${createHash('sha512').update(bytes).digest('base64')}`,
          shasum: createHash('sha1').update(bytes).digest('hex'),
        },
      },
    },
  });
  return server;
}
