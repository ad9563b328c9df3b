/** One documented operation: method, path and its OpenAPI operation object. */
export interface DocumentedOperation {
  readonly method: 'get' | 'post' | 'put' | 'delete' | 'patch';
  readonly path: string;
  readonly operation: Record<string, unknown>;
}
