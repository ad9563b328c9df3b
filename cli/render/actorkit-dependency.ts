import { relative, sep } from 'node:path';
import type { OwnPackage } from '../package-root.js';
import { actorkitOrigin } from './actorkit-origin.js';

/** The folder of an actor that holds the actorkit tarball it depends on, when actorkit does not come from a registry. */
export const VENDOR_FOLDER = 'vendor';

/** The dependency of an actor on an actorkit tarball vendored inside it: `file:vendor/actorkit-<version>.tgz`. */
const VENDORED = new RegExp(`^file:(${VENDOR_FOLDER}/actorkit-([^/]+)\\.tgz)$`);

/**
 * The `actorkit` dependency a rendered actor gets. From a registry: a caret range of the running
 * version. Otherwise (a checkout, a link, a tarball) the actor is made self-contained:
 * `file:vendor/actorkit-<version>.tgz`, a tarball `new` and `update` pack into the actor, so
 * `npm ci`, `publish` and the Dockerfile need nothing outside the actor folder. An actor rendered
 * inside a checkout (the checked-in examples) keeps a relative `file:` link to it.
 * @param own the package this CLI belongs to
 * @param targetDir where the actor is rendered (absolute)
 */
export function actorkitDependency(own: Pick<OwnPackage, 'root' | 'version'>, targetDir: string): string {
  const origin = actorkitOrigin(own);
  if (origin === 'registry') return `^${own.version}`;
  if (origin === 'checkout' && targetDir.startsWith(own.root + sep))
    return `file:${relative(targetDir, own.root).split(sep).join('/')}`;
  return `file:${VENDOR_FOLDER}/actorkit-${own.version}.tgz`;
}

/**
 * The vendored tarball an `actorkit` dependency names, as a path inside the actor and the version
 * in its name; `undefined` for any other dependency (a range, a link to a checkout).
 * @param dependency the dependency, e.g. `file:vendor/actorkit-0.1.0.tgz`.
 */
export function vendoredActorkit(
  dependency: string | undefined,
): { readonly path: string; readonly version: string } | undefined {
  const match = dependency === undefined ? null : VENDORED.exec(dependency);
  return match ? { path: match[1] as string, version: match[2] as string } : undefined;
}

/**
 * The template variables a render derives from the actorkit dependency: the dependency itself and
 * `actorkit_vendor_folder` (`vendor` when the actor vendors actorkit, else empty), which the
 * Dockerfile's install stages copy.
 * @param dependency from {@link actorkitDependency}, or as an answers file records it.
 */
export function dependencyContext(dependency: string): { actorkit_dependency: string; actorkit_vendor_folder: string } {
  return { actorkit_dependency: dependency, actorkit_vendor_folder: vendoredActorkit(dependency) ? VENDOR_FOLDER : '' };
}

/**
 * The variables every template sees before the answers: `actorkit_version`, and
 * `actorkit_peer_dependencies`, the ranges of actorkit's optional peers (so a template that adds
 * `@opentelemetry/*` or `@modelcontextprotocol/sdk` to an actor takes the versions from actorkit's
 * package.json instead of a second list).
 * @param own the actorkit package whose template is rendered.
 * @param version the actorkit version to expose (default: that package's; `update` passes the recorded one).
 */
export function templateBuiltins(
  own: Pick<OwnPackage, 'version' | 'peerDependencies'>,
  version = own.version,
): { actorkit_version: string; actorkit_peer_dependencies: Readonly<Record<string, string>> } {
  return { actorkit_version: version, actorkit_peer_dependencies: own.peerDependencies };
}
