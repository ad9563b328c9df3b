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
