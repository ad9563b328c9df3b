import { mkdirSync, symlinkSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { runInFreshFolder } from './support/run-in-fresh-folder.js';
import { BASIC_TEMPLATE_YML, gitIn, localTemplate, temporaryFolder } from './support/template-repo.js';

// A template is fetched from a repository someone else controls: a symbolic link in it must never
// make `actorkit new` read a file outside the template (docs/cli.md: links are refused).

const folder = temporaryFolder();
afterAll(() => folder.cleanup());

const SECRET = 'SECRET-OUTSIDE-THE-TEMPLATE';
const outside = join(folder.dir, 'outside');
mkdirSync(outside);
writeFileSync(join(outside, 'id_rsa'), `${SECRET}\n`);
writeFileSync(join(outside, 'README.md'), `${SECRET}\n`);

/** A one-commit template from `files`, plus symbolic links (relative path → link target). */
function templateWithLinks(files: Record<string, string>, links: Record<string, string>): string {
  const dir = localTemplate(folder.dir, files);
  for (const [path, target] of Object.entries(links)) {
    mkdirSync(join(dir, path, '..'), { recursive: true });
    symlinkSync(target, join(dir, path));
  }
  if (Object.keys(links).length === 0) return dir;
  gitIn(dir, 'add', '--all');
  gitIn(dir, 'commit', '--quiet', '-m', 'links');
  return dir;
}

async function refused(template: string) {
  const result = await runInFreshFolder(folder.dir, ['new', 'weather', 'out', '--local', template, '--defaults']);
  expect(result.code, result.stdout + result.stderr).not.toBe(0);
  expect(result.left).toEqual([]);
  expect(result.stdout + result.stderr).not.toContain(SECRET);
  return result;
}

describe('actorkit new: symbolic links in a template', () => {
  it('refuses a _subdirectory that is a link (to a folder outside the template)', async () => {
    const template = templateWithLinks(
      { 'template.yml': `_subdirectory: tpl\n${BASIC_TEMPLATE_YML}` },
      { tpl: outside },
    );
    const result = await refused(template);
    expect(result.stderr).toContain('_subdirectory');
    expect(result.stderr).toContain('symbolic link');
  });

  it('refuses a _subdirectory below a linked folder', async () => {
    const template = templateWithLinks(
      { 'template.yml': `_subdirectory: via/outside\n${BASIC_TEMPLATE_YML}` },
      { via: folder.dir },
    );
    expect((await refused(template)).stderr).toContain('symbolic link');
  });

  it('refuses an {% include %} of a linked file, even one the plan excludes', async () => {
    const template = templateWithLinks(
      {
        'template.yml': `_exclude: [_partials]\n${BASIC_TEMPLATE_YML}`,
        'README.md.njk': '# {{ actor_name }}\n{% include "_partials/key.txt" %}\n',
      },
      { '_partials/key.txt': join(outside, 'id_rsa') },
    );
    const result = await refused(template);
    expect(result.stderr).toContain('_partials/key.txt');
    expect(result.stderr).toContain('symbolic link');
  });

  it('refuses an {% include %} through a linked folder, and one that climbs out of the template', async () => {
    const linkedFolder = templateWithLinks(
      { 'template.yml': `_exclude: [parts]\n${BASIC_TEMPLATE_YML}`, 'README.md.njk': '{% include "parts/id_rsa" %}\n' },
      { parts: outside },
    );
    expect((await refused(linkedFolder)).stderr).toContain('symbolic link');
    const climbing = templateWithLinks(
      { 'template.yml': BASIC_TEMPLATE_YML, 'README.md.njk': `{% include "../outside/id_rsa" %}\n` },
      {},
    );
    expect((await refused(climbing)).stderr).toContain('leaves the template');
  });

  it("still renders includes of the template's own files", async () => {
    const template = localTemplate(folder.dir, {
      'template.yml': `_exclude: [_partials]\n${BASIC_TEMPLATE_YML}`,
      '_partials/line.txt.njk': 'hello {{ actor_name }}',
      'README.md.njk': '{% include "_partials/line.txt.njk" %}\n',
    });
    const result = await runInFreshFolder(folder.dir, ['new', 'weather', 'out', '--local', template, '--defaults']);
    expect(result.code, result.stderr).toBe(0);
  });
});
