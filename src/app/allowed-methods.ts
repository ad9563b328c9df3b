import type { Hono } from 'hono';
import { TrieRouter } from 'hono/router/trie-router';

/**
 * The methods an app's routes answer on a path, for `405 Method Not Allowed` and its `Allow`
 * header: GET brings HEAD; middleware and `all()` routes (which answer every method) say
 * nothing. Built on first use, from every route registered by then; a path without parameters
 * is one map lookup.
 * @param app the app whose routes to read
 * @returns a lookup from a request path to its methods, empty when no route has that path
 */
export function allowedMethods(app: Pick<Hono, 'routes'>): (path: string) => readonly string[] {
  let lookup: ((path: string) => readonly string[]) | undefined;
  const build = () => {
    const methodsByPath = new Map<string, Set<string>>();
    for (const route of app.routes) {
      if (route.method === 'ALL' || route.method === 'HEAD') continue;
      const methods = methodsByPath.get(route.path) ?? new Set<string>();
      methods.add(route.method);
      if (route.method === 'GET') methods.add('HEAD');
      methodsByPath.set(route.path, methods);
    }
    const router = new TrieRouter<readonly string[]>();
    for (const [routePath, methods] of methodsByPath) router.add('ALL', routePath, [...methods]);
    const match = (path: string): readonly string[] => {
      const found = new Set<string>();
      for (const [methods] of router.match('ALL', path)[0]) for (const method of methods) found.add(method);
      return [...found];
    };
    const exact = new Map(
      [...methodsByPath.keys()]
        .filter((routePath) => !/[:*]/.test(routePath))
        .map((routePath) => [routePath, match(routePath)]),
    );
    return (path: string): readonly string[] => exact.get(path) ?? match(path);
  };
  return (path) => (lookup ??= build())(path);
}
