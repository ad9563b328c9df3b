import { describe, expect, it } from 'vitest';
import { createTemplateEngine } from './template-engine.js';

const engine = createTemplateEngine(undefined);

describe('createTemplateEngine', () => {
  it('renders without escaping HTML', () => {
    expect(engine.render('{{ a }} & {{ b }}', { a: '<b>', b: '"x"' }, 'label')).toBe('<b> & "x"');
  });

  it.each([
    ['{{ missing }}', "label: undefined variable 'missing' (line 1, column 1)"],
    ['x\n  {{ user.name }}', "label: undefined variable 'user.name' (line 2, column 3)"],
    ['{{ user["first"] }}', "label: undefined variable 'user.first' (line 1, column 1)"],
  ])('names the undefined variable in %j', (source, message) => {
    expect(() => engine.render(source, { user: {} }, 'label')).toThrow(
      expect.objectContaining({ code: 'template_error', message }),
    );
  });

  it('passes other template errors through with the label', () => {
    expect(() => engine.render('{% if %}', {}, 'file a.njk')).toThrow(/^file a\.njk: unexpected token/);
    expect(() => engine.render('{{ nope() }}', {}, 'x')).toThrow(
      'x: Unable to call `nope`, which is undefined or falsey',
    );
  });

  it('lets templates test for undefined variables without failing', () => {
    expect(engine.render('{% if missing is defined %}yes{% else %}no{% endif %}', {}, 'x')).toBe('no');
  });
});
