import { build } from 'esbuild';
import { chromium, type Browser, type Page } from 'playwright-core';
import { CHROMIUM, CHROMIUM_ARGS } from '../surfaces/playground-in-chromium.js';

/** A page of an app open in headless chromium, and its browser. */
export interface UseChatPage {
  readonly browser: Browser;
  readonly page: Page;
}

/**
 * Page source for the elements after the messages: the chat's status (`#status`, its
 * `data-status`), its error (`#error`) and the message form (`#input`, `#send`). It needs `h`
 * (React's `createElement`) and `useChat`'s `status`, `error` and `sendMessage`, with the
 * `input` state and its `setInput`, in scope.
 */
export const CHAT_STATUS_AND_FORM = `h('p', { id: 'status', 'data-status': status }, status),
    error ? h('p', { id: 'error' }, String(error.message)) : null,
    h('form', { onSubmit: (event) => { event.preventDefault(); sendMessage({ text: input }); setInput(''); } },
      h('input', { id: 'input', value: input, onChange: (event) => setInput(event.target.value) }),
      h('button', { id: 'send', type: 'submit' }, 'Send'))`;

/** The page's script: React, `@ai-sdk/react` and `ai` from node_modules, bundled for the browser. */
async function bundlePage(source: string): Promise<string> {
  const result = await build({
    stdin: { contents: source, loader: 'js', resolveDir: process.cwd(), sourcefile: 'chat-app.js' },
    bundle: true,
    write: false,
    format: 'esm',
    platform: 'browser',
    target: 'es2022',
    define: { 'process.env.NODE_ENV': '"production"' },
    logLevel: 'silent',
  });
  return result.outputFiles[0]!.text;
}

/**
 * Opens chromium on a page whose script, an app's React page written with `useChat` from
 * `@ai-sdk/react`, is bundled from `source`. The page (`/chat-app.html`) and its script are
 * served as if by the actor's origin, so the transport's relative `/agent/invoke` reaches the
 * actor with no CORS in the way.
 * @param actorUrl the served actor's origin
 * @param source the page's script (JavaScript), rendering into `#root`
 * @param title the page's title
 */
export async function openUseChatPage(actorUrl: string, source: string, title: string): Promise<UseChatPage> {
  const script = await bundlePage(source);
  const html = `<!doctype html><html><head><meta charset="utf-8"><title>${title}</title></head>
<body><div id="root"></div><script type="module" src="/chat-app.js"></script></body></html>`;
  const browser = await chromium.launch({ executablePath: CHROMIUM, args: CHROMIUM_ARGS });
  const page = await browser.newPage({ viewport: { width: 900, height: 700 } });
  await page.route(`${actorUrl}/chat-app.html*`, (route) => route.fulfill({ contentType: 'text/html', body: html }));
  await page.route(`${actorUrl}/chat-app.js`, (route) =>
    route.fulfill({ contentType: 'text/javascript', body: script }),
  );
  return { browser, page };
}
