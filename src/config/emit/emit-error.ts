/** Why the emitter could not build a configuration. */
export type EmitErrorCode =
  | 'actor_module_missing'
  | 'actor_module_failed'
  | 'invalid_definition'
  | 'package_json_missing'
  | 'package_json_invalid';

/** The emitter could not load the actor: a stable `code`, a message naming the file, and the `cause`. */
export class EmitError extends Error {
  readonly code: EmitErrorCode;

  constructor(code: EmitErrorCode, message: string, options: { cause?: unknown } = {}) {
    super(message, { cause: options.cause });
    this.name = 'EmitError';
    this.code = code;
  }
}
