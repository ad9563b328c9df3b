import { existsSync, readFileSync } from 'node:fs';
import { resolve } from 'node:path';
import nunjucks from 'nunjucks';
import { CliError } from '../cli-error.js';
import { assertNoLinkOnPath } from '../links-on-path.js';

/** Renders nunjucks sources for one template: autoescape off, undefined output is an error. */
export interface TemplateEngine {
  /**
   * Renders `source` with `context`; `label` says what is rendered (a file, a path, a default)
   * and starts every error message.
   */
  render(source: string, context: Record<string, unknown>, label: string): string;
}

/**
 * Creates the nunjucks environment of a template rooted at `root` (so `{% include %}` finds the
 * template's own files, and only those: an include that leaves `root` or passes a symbolic link
 * is refused, code `path_escape` / `template_symlink`). Other errors are {@link CliError}s with
 * code `template_error` that name the undefined variable.
 * @param root the template root folder, or `undefined` for sources that include nothing.
 */
export function createTemplateEngine(root: string | undefined): TemplateEngine {
  const last: { refusal?: CliError } = {};
  const loader: nunjucks.ILoader | null =
    root === undefined
      ? null
      : {
          getSource(name) {
            const path = resolve(root, name);
            try {
              assertNoLinkOnPath(root, path, `{% include "${name}" %}`);
            } catch (error) {
              last.refusal = error as CliError;
              throw error;
            }
            return existsSync(path)
              ? { src: readFileSync(path, 'utf8'), path, noCache: true }
              : (null as unknown as nunjucks.LoaderSource);
          },
        };
  const env = new nunjucks.Environment(loader, { autoescape: false, throwOnUndefined: true });
  return {
    render(source, context, label) {
      delete last.refusal;
      try {
        return new nunjucks.Template(source, env, label, true).render(context);
      } catch (error) {
        const refusal = last.refusal as CliError | undefined;
        if (refusal !== undefined)
          throw new CliError(refusal.status, refusal.code, `${label}: ${refusal.message}`, { cause: refusal });
        throw new CliError('failed', 'template_error', `${label}: ${describeRenderError(source, error)}`, {
          cause: error,
        });
      }
    },
  };
}

const POSITION = /\[Line (\d+), Column (\d+)\]/;

/** Rewrites a nunjucks error so that it names the variable that was undefined. */
function describeRenderError(source: string, error: unknown): string {
  const raw = error instanceof Error ? error.message : String(error);
  const detail = raw
    .replace(/^\([^)]*\)\s*(\[Line \d+, Column \d+\])?\s*/, '')
    .replace(/^Error: /, '')
    .trim();
  const position = POSITION.exec(raw);
  if (!position) return detail;
  const where = `line ${position[1]}, column ${position[2]}`;
  if (!detail.includes('undefined value')) return `${detail} (${where})`;
  const name = undefinedExpressionAt(source, Number(position[1]) - 1, Number(position[2]) - 1);
  return name === undefined
    ? `an expression printed an undefined value (${where})`
    : `undefined variable '${name}' (${where})`;
}

interface AstNode {
  readonly typename?: string;
  readonly lineno?: number;
  readonly colno?: number;
  readonly [key: string]: unknown;
}

const parser = (nunjucks as unknown as { parser: { parse(source: string): AstNode } }).parser;

function undefinedExpressionAt(source: string, lineno: number, colno: number): string | undefined {
  let found: string | undefined;
  const visit = (node: unknown): void => {
    if (found !== undefined || node === null || typeof node !== 'object') return;
    if (Array.isArray(node)) {
      node.forEach(visit);
      return;
    }
    const ast = node as AstNode;
    if (ast.typename === 'Output' && ast.lineno === lineno && ast.colno === colno) {
      const children = (ast.children as AstNode[] | undefined) ?? [];
      const expression = children.find((child) => child.typename !== 'TemplateData');
      found = expression ? expressionText(expression) : undefined;
      return;
    }
    for (const [key, value] of Object.entries(ast)) if (key !== 'parent') visit(value);
  };
  try {
    visit(parser.parse(source));
  } catch {
    return undefined;
  }
  return found;
}

function expressionText(node: AstNode): string | undefined {
  switch (node.typename) {
    case 'Symbol':
      return String(node.value);
    case 'LookupVal': {
      const target = expressionText(node.target as AstNode);
      const key = node.val as AstNode;
      if (target === undefined) return undefined;
      return key.typename === 'Literal' && typeof key.value === 'string' ? `${target}.${key.value}` : `${target}[…]`;
    }
    case 'FunCall': {
      const callee = expressionText(node.name as AstNode);
      return callee === undefined ? undefined : `${callee}(…)`;
    }
    default:
      return undefined;
  }
}
