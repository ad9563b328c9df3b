import { isAbsolute, relative, resolve, sep } from 'node:path';
import { CliError } from '../cli-error.js';

const DEPENDENCY_FIELDS = ['dependencies', 'devDependencies', 'optionalDependencies'] as const;

/**
 * Refuses (code `dependency_outside_build_context`) an actor whose `package.json` has a `file:`
 * or `link:` dependency pointing outside the actor folder — like the `file:<checkout>` link to
 * actorkit that `actorkit new` writes when run from a source checkout. The image is built with
 * the actor folder as its build context, so `npm ci` inside the build cannot see that path.
 * @param manifest the parsed `package.json`
 * @param root absolute path of the actor folder
 */
export function refuseDependenciesOutsideBuildContext(manifest: Record<string, unknown>, root: string): void {
  for (const field of DEPENDENCY_FIELDS) {
    const dependencies = manifest[field];
    if (typeof dependencies !== 'object' || dependencies === null) continue;
    for (const [name, spec] of Object.entries(dependencies)) {
      const local = typeof spec === 'string' ? /^(file|link):(.*)$/.exec(spec) : null;
      if (!local) continue;
      const fromRoot = relative(root, resolve(root, local[2] ?? ''));
      if (fromRoot !== '..' && !fromRoot.startsWith(`..${sep}`) && !isAbsolute(fromRoot)) continue;
      throw new CliError(
        'refused',
        'dependency_outside_build_context',
        `${field}.${name} is '${spec}', outside ${root}: the image is built with the actor folder as its build context, ` +
          `so \`npm ci\` in the build cannot see that path. Depend on ${name} from a registry (e.g. "${name}": "^<version>", then ` +
          `\`npm install\`), or vendor its tarball inside the actor folder (\`npm pack\` it into ./vendor, depend on ` +
          `"file:vendor/<tarball>.tgz" and COPY vendor/ in the Dockerfile's install stages); nothing was built or pushed`,
      );
    }
  }
}
