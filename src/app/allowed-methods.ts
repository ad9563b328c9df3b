import type { Hono } from 'hono';
import { TrieRouter } from 'hono/router/trie-router';

/**
 * The methods an app's routes answer on a path, for `405 Method Not Allowed` and its `Allow`
 * header: GET brings HEAD; middleware and `all()` routes say nothing. Built on first use, from
 * every route registered by then. Answering 405 from the not-found handler instead of a
 * middleware keeps requests that match a route free of it.
 * @param app the app whose routes to read
 * @returns a lookup from a request path to its methods, empty when no route has that path
 */
export function allowedMethods(app: Pick<Hono, 'routes'>): (path: string) => readonly string[] {
  let router: TrieRouter<readonly string[]> | undefined;
  return (path) => {
    if (router === undefined) {
      const methodsByPath = new Map<string, Set<string>>();
      for (const route of app.routes) {
        if (route.method === 'ALL' || route.method === 'HEAD') continue;
        const methods = methodsByPath.get(route.path) ?? new Set<string>();
        methods.add(route.method);
        if (route.method === 'GET') methods.add('HEAD');
        methodsByPath.set(route.path, methods);
      }
      router = new TrieRouter();
      for (const [routePath, methods] of methodsByPath) router.add('ALL', routePath, [...methods]);
    }
    const found = new Set<string>();
    for (const [methods] of router.match('ALL', path)[0]) for (const method of methods) found.add(method);
    return [...found];
  };
}
