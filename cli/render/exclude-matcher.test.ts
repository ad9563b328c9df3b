import { describe, expect, it } from 'vitest';
import { createExcludeMatcher } from './exclude-matcher.js';

describe('createExcludeMatcher', () => {
  it('matches a pattern without a slash at any depth, file or folder', () => {
    const excluded = createExcludeMatcher(['*.log', 'node_modules']);
    expect(excluded('debug.log')).toBe(true);
    expect(excluded('a/b/trace.log')).toBe(true);
    expect(excluded('node_modules/x/index.js')).toBe(true);
    expect(excluded('src/node_modules')).toBe(true);
    expect(excluded('log.txt')).toBe(false);
    expect(excluded('src/logs.ts')).toBe(false);
  });

  it('anchors a pattern with a slash at the template root and excludes everything below a folder', () => {
    const excluded = createExcludeMatcher(['docs/drafts', '/build/']);
    expect(excluded('docs/drafts')).toBe(true);
    expect(excluded('docs/drafts/plan.md')).toBe(true);
    expect(excluded('build/out.js')).toBe(true);
    expect(excluded('src/docs/drafts')).toBe(false);
    expect(excluded('docs/drafts-old/x')).toBe(false);
  });

  it('keeps * and ? inside one segment and lets ** span segments', () => {
    const excluded = createExcludeMatcher(['src/*.tmp', 'a/**/z.txt', 'file?.md']);
    expect(excluded('src/x.tmp')).toBe(true);
    expect(excluded('src/deep/x.tmp')).toBe(false);
    expect(excluded('a/z.txt')).toBe(true);
    expect(excluded('a/b/c/z.txt')).toBe(true);
    expect(excluded('file1.md')).toBe(true);
    expect(excluded('file12.md')).toBe(false);
  });

  it('treats regular-expression characters literally', () => {
    const excluded = createExcludeMatcher(['a+b(1).txt']);
    expect(excluded('a+b(1).txt')).toBe(true);
    expect(excluded('aab1.txt')).toBe(false);
  });

  it('excludes nothing without patterns', () => {
    expect(createExcludeMatcher([])('anything')).toBe(false);
  });
});
