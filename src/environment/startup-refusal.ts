/**
 * A configuration mistake that stops an actor from starting: a bad or missing environment
 * variable, an invalid setting, a surface that is on without its variable. Its message is one
 * line that names the variable (or setting) and what to do, and never holds a secret's value;
 * the adapters print it on stderr and exit 1, without a stack trace.
 */
export class StartupRefusal extends Error {
  /** The environment variable or setting at fault, e.g. `MESH_KEY` or `llm_base_url`. */
  readonly variable: string;

  constructor(variable: string, message: string, options?: { cause?: unknown }) {
    super(message.replace(/\s*\n\s*/g, ' '), options);
    this.name = 'StartupRefusal';
    this.variable = variable;
  }
}

/** An optional peer package a template option needs, as its refusal names it. */
export interface OptionalPeer {
  /** The package, e.g. `@a2a-js/sdk`. */
  readonly packageName: string;
  /** The template option that turns it on, e.g. `expose_a2a`. */
  readonly option: string;
  /** The definition's feature flag, e.g. `exposeA2a`. */
  readonly feature: string;
}

/**
 * Imports an optional peer package for the surface an option turns on. A missing package is a
 * `StartupRefusal` naming the option and the `npm install` to run, so the actor exits with one
 * line instead of serving routes that cannot work.
 * @param importer the dynamic import of the package's modules
 * @param peer the package and the option that needs it
 */
export async function importOptionalPeer<T>(importer: () => Promise<T>, peer: OptionalPeer): Promise<T> {
  try {
    return await importer();
  } catch (error) {
    throw new StartupRefusal(
      peer.option,
      `features.${peer.feature} is on but ${peer.packageName} cannot be loaded (${(error as Error).message.split('\n', 1)[0]}): run \`npm install ${peer.packageName}\` in the actor, or turn ${peer.option} off`,
      { cause: error },
    );
  }
}
