import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { temporaryFolder } from '../cli/support/template-repo.js';
import { docExamples, documentedFiles, exampleName } from './doc-examples.js';

const folder = temporaryFolder('actorkit-doc-examples-');
afterAll(() => folder.cleanup());

function markdown(name: string, text: string): string {
  mkdirSync(join(folder.dir, 'docs'), { recursive: true });
  writeFileSync(join(folder.dir, name), text);
  return name;
}

describe('docExamples', () => {
  it('finds fenced blocks at any depth with their fence line, language and the directive right before them', () => {
    const file = markdown(
      'docs/a.md',
      [
        '# A', // 1
        '', // 2
        '<!-- docs-test: skip reason="serves until stopped" -->', // 3
        '```sh', // 4
        'npm start', // 5
        '```', // 6
        '', // 7
        '- a list item:', // 8
        '', // 9
        '  <!-- docs-test: expect=\'"ok":true\' -->', // 10
        '  ```Bash', // 11
        '  curl -s localhost:8080/health', // 12
        '  ```', // 13
        '', // 14
        '```', // 15
        'plain', // 16
        '```', // 17
        '', // 18
        '<!-- an ordinary comment -->', // 19
        '```ts', // 20
        'const x = 1;', // 21
        '```', // 22
      ].join('\n'),
    );
    const examples = docExamples(folder.dir, file);
    expect(examples).toEqual([
      { file, line: 4, lang: 'sh', code: 'npm start', directive: { kind: 'skip', reason: 'serves until stopped' } },
      {
        file,
        line: 11,
        lang: 'bash',
        code: 'curl -s localhost:8080/health',
        directive: { kind: 'expect', text: '"ok":true' },
      },
      { file, line: 15, lang: '', code: 'plain' },
      { file, line: 20, lang: 'ts', code: 'const x = 1;' },
    ]);
    expect(examples.map(exampleName)).toEqual([
      'docs/a.md:4 (sh)',
      'docs/a.md:11 (bash)',
      'docs/a.md:15 (no language)',
      'docs/a.md:20 (ts)',
    ]);
  });

  it('refuses a docs-test comment it cannot read, naming its file and line', () => {
    const file = markdown('docs/b.md', '# B\n\n<!-- docs-test: skip because it is slow -->\n```sh\nsleep 1\n```\n');
    expect(() => docExamples(folder.dir, file)).toThrow(/^docs\/b\.md:3: malformed docs-test comment/);
  });

  it('covers README.md and every docs/*.md, in a stable order', () => {
    markdown('README.md', '# R\n');
    expect(documentedFiles(folder.dir)).toEqual(['README.md', 'docs/a.md', 'docs/b.md']);
  });
});
