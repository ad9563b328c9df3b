/**
 * Compiles the `_exclude` globs of a template.yml into one predicate over template-relative
 * POSIX paths, with .gitignore-like rules: a pattern without a slash matches a file or folder of
 * that name at any depth; a pattern with a slash is anchored at the template root; `*` and `?`
 * stay inside one path segment, `**` spans segments; excluding a folder excludes all below it.
 * @param patterns the globs, e.g. `["*.pyc", "docs/**", ".github"]`.
 * @example
 * const excluded = createExcludeMatcher(['*.log']);
 * excluded('logs/today.log'); // true
 */
export function createExcludeMatcher(patterns: readonly string[]): (relativePath: string) => boolean {
  const compiled = patterns.map(compilePattern);
  return function isExcluded(relativePath) {
    const segments = relativePath.split('/');
    for (let depth = 1; depth <= segments.length; depth++) {
      const prefix = segments.slice(0, depth).join('/');
      const name = segments[depth - 1] ?? '';
      for (const { anchored, regex } of compiled) if (regex.test(anchored ? prefix : name)) return true;
    }
    return false;
  };
}

function compilePattern(pattern: string): { anchored: boolean; regex: RegExp } {
  const trimmed = pattern.replace(/^\.\//, '').replace(/\/+$/, '');
  const anchored = trimmed.includes('/');
  const body = trimmed.replace(/^\//, '');
  let source = '';
  for (let index = 0; index < body.length; index++) {
    const char = body[index] as string;
    if (char === '*' && body[index + 1] === '*') {
      const slashAfter = body[index + 2] === '/';
      source += slashAfter ? '(?:.*/)?' : '.*';
      index += slashAfter ? 2 : 1;
    } else if (char === '*') source += '[^/]*';
    else if (char === '?') source += '[^/]';
    else source += char.replace(/[.+^${}()|[\]\\]/g, '\\$&');
  }
  return { anchored, regex: new RegExp(`^${source}$`) };
}
