import { describe, expect, it } from 'vitest';
import { ownPackage } from '../package-root.js';
import type { AnswersRecord } from '../render/answers-file.js';
import { templatesNeedingTrust } from './template-trust.js';

const record = (
  source: AnswersRecord['source'],
  location: string,
  actorkit_version = ownPackage().version,
): AnswersRecord => ({
  source,
  location,
  ref: source === 'bundled' ? null : 'v1.0.0',
  commit: source === 'bundled' ? null : 'a'.repeat(40),
  actorkit_version,
  answers: {},
});
const io = (named?: string) => ({
  cwd: '/work/actors',
  env: named === undefined ? {} : { ACTORKIT_TEMPLATE_REPO: named },
});

describe('templatesNeedingTrust: which templates update renders without asking', () => {
  it('trusts the template bundled with the running actorkit', () => {
    expect(templatesNeedingTrust(record('bundled', `actorkit@${ownPackage().version}/templates/actor`), io())).toEqual(
      [],
    );
  });

  it('names the template of another actorkit version', () => {
    expect(templatesNeedingTrust(record('bundled', 'actorkit@0.0.9/templates/actor', '0.0.9'), io())).toEqual([
      `the template of actorkit 0.0.9, which .actorkit-answers.yml records (the running actorkit ${ownPackage().version} brings only its own)`,
    ]);
  });

  it('trusts a --local checkout at the path ACTORKIT_TEMPLATE_REPO names', () => {
    expect(templatesNeedingTrust(record('local', '/work/templates/actor'), io('/work/templates/actor'))).toEqual([]);
  });

  it.each([
    [
      'a git URL, as written',
      'https://git.example.com/templates/actor.git',
      'https://git.example.com/templates/actor.git',
    ],
    [
      'a relative path, made absolute from the working folder as new records it',
      '/work/templates/actor',
      '../templates/actor',
    ],
  ])('trusts the repository ACTORKIT_TEMPLATE_REPO names: %s', (_what, recorded, named) => {
    expect(templatesNeedingTrust(record('repository', recorded), io(named))).toEqual([]);
  });

  it.each([
    [
      'another repository',
      record('repository', 'https://evil.example.com/t.git'),
      io('https://git.example.com/templates/actor.git'),
      'the template repository https://evil.example.com/t.git',
    ],
    [
      'a repository with no ACTORKIT_TEMPLATE_REPO set',
      record('repository', '/work/templates/actor'),
      io(),
      'the template repository /work/templates/actor',
    ],
    [
      'a --local checkout',
      record('local', '/work/templates/actor'),
      io('/work/templates/other'),
      'the local template checkout /work/templates/actor',
    ],
  ])('names %s', (_what, recorded, runIo, named) => {
    expect(templatesNeedingTrust(recorded, runIo)).toEqual([
      `${named}, which .actorkit-answers.yml names (ACTORKIT_TEMPLATE_REPO does not)`,
    ]);
  });
});
