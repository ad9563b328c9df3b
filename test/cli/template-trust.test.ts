import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { runInFreshFolder } from './support/run-in-fresh-folder.js';
import { BASIC_TEMPLATE_YML, localTemplate, temporaryFolder } from './support/template-repo.js';

// Nunjucks is not a sandbox: a template expression reaches JavaScript's Function constructor and
// runs code with the rights of whoever runs `actorkit new`. docs/cli.md must say so where the
// template's source is chosen.

const folder = temporaryFolder();
afterAll(() => folder.cleanup());

describe('templates are code', () => {
  it('a template expression runs JavaScript at `new` (why a template is trusted like code)', async () => {
    const template = localTemplate(folder.dir, {
      'template.yml': BASIC_TEMPLATE_YML,
      'README.md.njk': '{{ range.constructor("return 6 * 7")() }}\n',
    });
    const result = await runInFreshFolder(folder.dir, ['new', 'weather', 'out', '--local', template, '--defaults']);
    expect(result.code, result.stderr).toBe(0);
    expect(readFileSync(join(result.cwd, 'out', 'README.md'), 'utf8')).toBe('42\n');
  });

  it('docs/cli.md says so next to ACTORKIT_TEMPLATE_REPO and --local', () => {
    const docs = readFileSync(new URL('../../docs/cli.md', import.meta.url), 'utf8');
    const sources = docs.slice(docs.indexOf('### Where the template comes from'), docs.indexOf('### `template.yml`'));
    expect(sources).toMatch(/templates are code/i);
    expect(sources).toContain('ACTORKIT_TEMPLATE_REPO');
    const environmentRow = docs.split('\n').find((line) => line.startsWith('| `ACTORKIT_TEMPLATE_REPO`'));
    expect(environmentRow).toMatch(/runs as code|is code/i);
  });
});
