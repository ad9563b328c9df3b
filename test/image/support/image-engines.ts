import { accessSync, constants, readFileSync } from 'node:fs';
import { delimiter, join } from 'node:path';

/** The programs the image tests run, and the Debian packages that bring them: test/image/image-tools.txt, which .ci/run reads too. */
const IMAGE_TOOLS = readFileSync(new URL('../image-tools.txt', import.meta.url), 'utf8')
  .split('\n')
  .filter((line) => line.trim() !== '' && !line.startsWith('#'))
  .map((line) => {
    const [program = '', packageName = ''] = line.trim().split(/\s+/);
    return { program, package: packageName };
  });

/** The command that installs every program the image tests need (as root). */
export const IMAGE_TOOLS_INSTALL = `apt-get install ${IMAGE_TOOLS.map((tool) => tool.package).join(' ')}`;

function onPath(program: string): boolean {
  return (process.env.PATH ?? '').split(delimiter).some((dir) => {
    try {
      accessSync(join(dir, program), constants.X_OK);
      return true;
    } catch {
      return false;
    }
  });
}

/** What keeps the image tests from running here: missing programs, or not being root (debootstrap, the engines' configuration). */
function imageEngineProblems(): string[] {
  const problems = IMAGE_TOOLS.filter((tool) => !onPath(tool.program)).map((tool) => `${tool.program} is missing`);
  if (process.getuid?.() !== 0) problems.push('the tests must run as root (debootstrap, rootful podman)');
  return problems;
}

/**
 * Whether the image tests can run here (podman, buildah, runc, skopeo, docker-registry and
 * debootstrap on PATH, running as root). When not: with `CI=true` it throws, so CI fails loudly
 * instead of skipping; otherwise it prints why and how to get them, and answers false.
 * @example describe.runIf(imageEnginesReady())('the actor image', () => { … })
 */
export function imageEnginesReady(): boolean {
  const problems = imageEngineProblems();
  if (problems.length === 0) return true;
  const message = `The image tests need real container tools: ${problems.join('; ')}. Install them with: ${IMAGE_TOOLS_INSTALL}`;
  if (process.env.CI === 'true')
    throw new Error(`${message}\nCI=true: these tests must run, not be skipped (.ci/run installs the packages).`);
  console.warn(`[image tests] SKIPPED. ${message}`);
  return false;
}
