import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import type { Code, Nodes, Parents } from 'mdast';
import { fromMarkdown } from 'mdast-util-from-markdown';

/**
 * What the HTML comment right before a block asks of the docs test:
 * `<!-- docs-test: skip reason="…" -->` exempts it (the reason is listed in every run);
 * `<!-- docs-test: expect="…" -->` (or `expect='…'`, for text with double quotes) requires its
 * output to contain that text.
 */
export type DocDirective =
  | { readonly kind: 'skip'; readonly reason: string }
  | { readonly kind: 'expect'; readonly text: string };

/** One fenced code block of the docs, with where it is. */
export interface DocExample {
  /** Path relative to the repository root, e.g. `docs/cli.md`. */
  readonly file: string;
  /** 1-based line of the opening fence. */
  readonly line: number;
  /** The fence's language, lower-cased; `''` when it has none. */
  readonly lang: string;
  readonly code: string;
  readonly directive?: DocDirective;
}

const DIRECTIVE = /^<!--\s*docs-test:\s*(skip\s+reason|expect)=(?:"([^"]+)"|'([^']+)')\s*-->$/;

/**
 * The markdown files whose examples are tested: README.md and every docs/*.md.
 * @param root the repository root.
 */
export function documentedFiles(root: string): string[] {
  const docs = readdirSync(join(root, 'docs'))
    .filter((name) => name.endsWith('.md'))
    .sort();
  return ['README.md', ...docs.map((name) => `docs/${name}`)];
}

/**
 * Every fenced code block of a markdown file, parsed with mdast-util-from-markdown (so blocks
 * inside lists and quotes count too), each with the docs-test directive of the HTML comment
 * right before it. A `docs-test` comment that does not parse throws, naming its line.
 * @param root the repository root.
 * @param file the file, relative to `root`.
 */
export function docExamples(root: string, file: string): DocExample[] {
  const tree = fromMarkdown(readFileSync(join(root, file), 'utf8'));
  const examples: DocExample[] = [];
  const visit = (parent: Parents) => {
    parent.children.forEach((node: Nodes, index) => {
      if (node.type === 'html' && node.value.includes('docs-test') && !DIRECTIVE.test(node.value.trim())) {
        throw new Error(
          `${file}:${node.position?.start.line}: malformed docs-test comment ${node.value.trim()}; write <!-- docs-test: skip reason="…" --> or <!-- docs-test: expect="…" -->`,
        );
      }
      if (node.type === 'code') examples.push(example(file, node, parent.children[index - 1]));
      if ('children' in node) visit(node);
    });
  };
  visit(tree);
  return examples;
}

function example(file: string, node: Code, previous: Nodes | undefined): DocExample {
  const base = { file, line: node.position?.start.line ?? 0, lang: (node.lang ?? '').toLowerCase(), code: node.value };
  const match = previous?.type === 'html' ? DIRECTIVE.exec(previous.value.trim()) : null;
  if (match === null) return base;
  const value = match[2] ?? match[3]!;
  const directive: DocDirective =
    match[1] === 'expect' ? { kind: 'expect', text: value } : { kind: 'skip', reason: value };
  return { ...base, directive };
}

/** `docs/cli.md:6 (sh)`: how a failure names a block. */
export function exampleName(example: DocExample): string {
  return `${example.file}:${example.line} (${example.lang || 'no language'})`;
}
