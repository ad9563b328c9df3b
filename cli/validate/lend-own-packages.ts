import { once } from 'node:events';
import { register } from 'node:module';
import { join, resolve, sep } from 'node:path';
import { pathToFileURL } from 'node:url';
import { MessageChannel, type MessagePort } from 'node:worker_threads';

/**
 * The Node module-resolution hook {@link lendOwnPackages} registers, as source: a bare import
 * (`valibot`, `actorkit/sdk`) made by a module of a registered actor folder (outside its
 * `node_modules`) that cannot be resolved from there is resolved again from this package's root,
 * so the actor gets this package's own copy (`actorkit` itself through the package's
 * self-reference). When this package has none either, the actor's own error stands, so its
 * message still names the missing package. Registered as a `data:` URL so that it runs the same
 * from the TypeScript sources and from `dist/`.
 */
const HOOK_SOURCE = `
const roots = [];
let lender;
export async function initialize({ port, parentURL }) {
  lender = parentURL;
  port.on('message', (root) => { roots.push(root); port.postMessage(root); });
}
function fromActor(parentURL) {
  if (typeof parentURL !== 'string' || !parentURL.startsWith('file://')) return false;
  const path = decodeURIComponent(new URL(parentURL).pathname);
  return roots.some((root) => path.startsWith(root) && !path.slice(root.length).split('/').includes('node_modules'));
}
export async function resolve(specifier, context, nextResolve) {
  try {
    return await nextResolve(specifier, context);
  } catch (error) {
    const bare = !/^(?:[./]|[a-zA-Z][a-zA-Z0-9+.-]*:)/.test(specifier);
    if (error?.code !== 'ERR_MODULE_NOT_FOUND' || !bare || !fromActor(context.parentURL)) throw error;
    try {
      return await nextResolve(specifier, { ...context, parentURL: lender });
    } catch {
      throw error;
    }
  }
}
`;

let channel: MessagePort | undefined;

/**
 * Lets the modules of an actor folder that has no `node_modules/actorkit` import this package
 * (`actorkit`, `actorkit/sdk`) and the packages this package depends on (`valibot`, …) when the
 * actor has not installed them, so `actorkit validate` can load a freshly rendered actor before
 * `npm install`. Registers one module-resolution hook per process (Node's `module.register`)
 * and adds the folder to the ones it serves; resolution is unchanged for every other module.
 * @param actorRoot the actor's absolute folder.
 * @param lenderRoot the root folder of the package that lends its own copies (this package).
 */
export async function lendOwnPackages(actorRoot: string, lenderRoot: string): Promise<void> {
  if (channel === undefined) {
    const { port1, port2 } = new MessageChannel();
    const parentURL = pathToFileURL(join(lenderRoot, 'package.json')).href;
    register(`data:text/javascript,${encodeURIComponent(HOOK_SOURCE)}`, {
      data: { port: port2, parentURL },
      transferList: [port2],
    });
    channel = port1;
  }
  const root = resolve(actorRoot).split(sep).join('/');
  channel.ref();
  channel.postMessage(`${root}/`);
  await once(channel, 'message');
  channel.unref();
}
