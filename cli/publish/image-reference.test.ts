import { describe, expect, it } from 'vitest';
import { checkImageRepository, checkImageTag } from './image-reference.js';

describe('checkImageRepository', () => {
  it.each([
    'weather',
    'acme/weather',
    'ghcr.io/acme/weather-actor',
    'localhost:5000/a/b',
    'registry.example.com/a__b/c.d',
  ])('accepts %s', (repository) => expect(checkImageRepository(repository)).toBe(repository));

  it.each([
    ['acme/weather:v1', 'without a tag or digest'],
    ['acme/weather@sha256:abc', 'without a tag or digest'],
    ['Acme/Weather', 'not a valid image repository'],
    ['-rm', 'not a valid image repository'],
    ['a//b', 'not a valid image repository'],
    ['', 'not a valid image repository'],
  ])('refuses %s', (repository, message) => {
    expect(() => checkImageRepository(repository)).toThrow(
      expect.objectContaining({ code: 'invalid_repo', message: expect.stringContaining(message) }),
    );
  });
});

describe('checkImageTag', () => {
  it('accepts docker tags and refuses the rest', () => {
    expect(checkImageTag('v1.2.0')).toBe('v1.2.0');
    expect(checkImageTag('2024.06_rc-1')).toBe('2024.06_rc-1');
    for (const bad of ['-x', '.x', 'a b', 'a/b', '', 'x'.repeat(129)]) {
      expect(() => checkImageTag(bad)).toThrow(expect.objectContaining({ code: 'invalid_tag' }));
    }
  });
});
