import type * as NodeHttp from 'node:http';
import type * as NodeHttps from 'node:https';
import type { ModelHttpAnswer, ModelHttpRequest, ModelHttpTransport } from './model-http-transport.js';

type NodeProcess = NodeJS.Process & { getBuiltinModule?: (id: string) => unknown };

let loaded: ModelHttpTransport | null | undefined;

/** Where one URL's requests go, worked out once per URL object (a model makes its URL once). */
interface NodeTarget {
  readonly secure: boolean;
  readonly hostname: string;
  readonly port: string | undefined;
  readonly path: string;
  readonly auth: string | undefined;
  /** The `Host` header: Node adds none when the headers are given as a list. */
  readonly host: string;
}

const targets = new WeakMap<URL, NodeTarget>();

function targetOf(url: URL): NodeTarget {
  let target = targets.get(url);
  if (target === undefined) {
    target = {
      secure: url.protocol === 'https:',
      hostname: url.hostname.startsWith('[') ? url.hostname.slice(1, -1) : url.hostname,
      port: url.port || undefined,
      path: `${url.pathname}${url.search}`,
      auth: url.username ? `${decodeURIComponent(url.username)}:${decodeURIComponent(url.password)}` : undefined,
      host: url.host,
    };
    targets.set(url, target);
  }
  return target;
}

/** Redirects that repeat the POST with its body (a 301, 302 or 303 would turn it into a GET, which no chat endpoint answers). */
const REPEATS_THE_POST: ReadonlySet<number> = new Set([307, 308]);

/** Redirects one call follows at most. */
const MAX_REDIRECTS = 5;

/**
 * Posts over `node:http`/`node:https` with keep-alive agents: the request goes out in one system
 * call (headers and a `Content-Length` body together) and the answer is read as text, with no Fetch
 * `Request`, `Response`, `Headers` or web stream in between — on Node these cost several times
 * the round trip itself. The headers go as a list (Node still checks each name and value), and
 * each URL's parts are worked out once. A 307 or 308 to the same host (another path, or http to
 * https) is followed, as `fetch` would; one to another host is answered as it is, so the key and
 * the configured headers never go where `LLM_BASE_URL` does not point.
 */
function nodeModelTransport(http: typeof NodeHttp, https: typeof NodeHttps): ModelHttpTransport {
  const agents = { http: new http.Agent({ keepAlive: true }), https: new https.Agent({ keepAlive: true }) };
  const postOnce = ({ url, headers, body, signal }: ModelHttpRequest) =>
    new Promise<ModelHttpAnswer>((resolve, reject) => {
      const target = targetOf(url);
      const headerList = ['host', target.host];
      for (const name in headers) headerList.push(name, headers[name]!);
      headerList.push('content-length', String(Buffer.byteLength(body)));
      const options: NodeHttp.RequestOptions = {
        method: 'POST',
        hostname: target.hostname,
        port: target.port,
        path: target.path,
        auth: target.auth,
        headers: headerList as unknown as NodeHttp.OutgoingHttpHeaders,
        agent: target.secure ? agents.https : agents.http,
        signal,
      };
      const request = (target.secure ? https : http).request(options, (response) => {
        let text = '';
        response.setEncoding('utf8');
        response.on('data', (piece: string) => {
          text += piece;
        });
        response.on('error', reject);
        response.on('close', () => {
          if (!response.complete)
            reject(signal.aborted ? signal.reason : new Error('the connection closed before the answer ended'));
        });
        response.on('end', () => {
          const received = response.headers;
          resolve({
            status: response.statusCode ?? 0,
            header: (name) => {
              const value = received[name];
              return Array.isArray(value) ? value.join(', ') : value;
            },
            body: text,
          });
        });
      });
      request.on('error', reject);
      request.end(body);
    });
  return async function postOverNodeHttp(request) {
    let answer = await postOnce(request);
    for (let hops = 0, at = request.url; hops < MAX_REDIRECTS && REPEATS_THE_POST.has(answer.status); hops += 1) {
      const location = answer.header('location');
      const next = location === undefined || !URL.canParse(location, at) ? undefined : new URL(location, at);
      if (
        next === undefined ||
        next.hostname !== at.hostname ||
        (next.protocol !== 'http:' && next.protocol !== 'https:')
      )
        break;
      at = next;
      answer = await postOnce({ ...request, url: at });
    }
    return answer;
  };
}

/**
 * The `node:http` transport when this runtime is Node, else undefined: Bun and Deno keep their
 * own `fetch`, which is their fast path. Also undefined when `NODE_USE_ENV_PROXY` asks Node to
 * send requests through the proxy of `HTTP_PROXY`/`HTTPS_PROXY`, which Node's `fetch` honours.
 * Made once per process, so every model shares its connections.
 */
export function loadNodeModelTransport(): ModelHttpTransport | undefined {
  if (loaded !== undefined) return loaded ?? undefined;
  const host = globalThis as { Bun?: unknown; Deno?: unknown; process?: NodeProcess };
  const process = host.process;
  if (
    host.Bun !== undefined ||
    host.Deno !== undefined ||
    typeof process?.getBuiltinModule !== 'function' ||
    process.env.NODE_USE_ENV_PROXY
  ) {
    loaded = null;
    return undefined;
  }
  loaded = nodeModelTransport(
    process.getBuiltinModule('node:http') as typeof NodeHttp,
    process.getBuiltinModule('node:https') as typeof NodeHttps,
  );
  return loaded;
}
