import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';

/** The environment variables through which podman, buildah and skopeo read the two files. */
const CONTAINERS_CONF = 'CONTAINERS_CONF';
const CONTAINERS_REGISTRIES_CONF = 'CONTAINERS_REGISTRIES_CONF';

/**
 * Builds keep no intermediate images (`BUILDAH_LAYERS=false`, read by `podman build` and
 * `buildah build` alike; buildah's own default). The tests build each context once, so podman's
 * default `--layers`, which commits every instruction as an image for a later build to reuse, only
 * costs time: an actor image took 74–79 s with it and 39–46 s without, interleaved on this machine.
 * The image built is the same; only the build cache is not kept.
 */
const BUILD_ENVIRONMENT = { BUILDAH_LAYERS: 'false' } as const;

/**
 * THIS MACHINE's quirks, not a user's (measured as root, podman 4.3, buildah 1.28, hybrid
 * cgroups v1): the default runtime crun cannot start containers, runc can; and runc cannot set the
 * engine's default rlimits, which are above this machine's hard limits (`error setting rlimit type
 * 7: operation not permitted`), so containers and build RUN steps get lower ones. The default bridge network reaches registry.npmjs.org (for
 * RUN steps) and publishes ports, so the network is left as a user has it.
 */
const CONTAINERS_CONF_TEXT = `# Written by test/image/support/engine-config.ts for the image tests on this machine only.
[containers]
default_ulimits = ["nofile=1024:1024", "nproc=4096:4096"]

[engine]
runtime = "runc"
`;

/**
 * Writes a registries.conf that: trusts the loopback registries over plain http (Debian's
 * docker-registry serves no TLS), resolves no short name through a registry (a `FROM node:…` must
 * be the local stand-in, see `ensureBaseImage`), and blocks docker.io so that a pull that slips
 * through fails at once instead of waiting on a network that cannot reach it.
 */
function registriesConfText(insecureRegistries: readonly string[]): string {
  const insecure = insecureRegistries
    .map((host) => `\n[[registry]]\nlocation = ${JSON.stringify(host)}\ninsecure = true\n`)
    .join('');
  return `# Written by test/image/support/engine-config.ts for the image tests on this machine only.
unqualified-search-registries = []
${insecure}
[[registry]]
location = "docker.io"
blocked = true
`;
}

/** Which registries the written registries.conf trusts over plain http. */
export interface EngineConfigOptions {
  /** `host:port` of each loopback registry, e.g. `LoopbackRegistry.host`. */
  readonly insecureRegistries: readonly string[];
}

/**
 * Writes `containers.conf` and `registries.conf` for this machine into `dir` and returns the
 * environment to run podman, buildah and skopeo with (this process's, plus `CONTAINERS_CONF`,
 * `CONTAINERS_REGISTRIES_CONF` and `BUILDAH_LAYERS=false`), so the commands themselves stay as a user types them:
 * `podman build -f Dockerfile -t X dir`, `podman push X`, `podman run …`, `buildah push X`.
 * @param dir a scratch folder (created if missing)
 * @param options the loopback registries to trust over http
 * @example const env = writeEngineConfig(dir, { insecureRegistries: [registry.host] })
 */
export function writeEngineConfig(dir: string, options: EngineConfigOptions): Record<string, string | undefined> {
  mkdirSync(dir, { recursive: true });
  const containersConf = join(dir, 'containers.conf');
  const registriesConf = join(dir, 'registries.conf');
  writeFileSync(containersConf, CONTAINERS_CONF_TEXT);
  writeFileSync(registriesConf, registriesConfText(options.insecureRegistries));
  return {
    ...process.env,
    ...BUILD_ENVIRONMENT,
    [CONTAINERS_CONF]: containersConf,
    [CONTAINERS_REGISTRIES_CONF]: registriesConf,
  };
}
