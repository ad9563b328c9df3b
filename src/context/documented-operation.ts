/**
 * Who may call a route: `open` (no key, even when API keys are on), `apiKey` (the `X-API-Key`
 * when API keys are on, nothing when they are off) or `meshKey` (the group's `X-Mesh-Key`, and
 * the API key too when API keys are on).
 */
export type RouteSecurity = 'open' | 'apiKey' | 'meshKey';

/** The role of a route in topic contract v1.0, as `config.json` lists it under `contract.endpoints`. */
type ContractRole = 'required' | 'recommended' | 'always' | 'conditional';

/**
 * One documented operation: method, path (OpenAPI template, `{param}`), its OpenAPI operation
 * object, and the facts the app derives from it — who may call it, whether its body is capped
 * at `BODY_LIMIT_BYTES`, and its role in the platform contract. The security requirement and
 * the 401 (and 421) answers of the auth mode are added by `/openapi.json`, not written here.
 */
export interface DocumentedOperation {
  readonly method: 'get' | 'post' | 'put' | 'delete' | 'patch' | 'options';
  readonly path: string;
  readonly operation: Record<string, unknown>;
  /** Who may call it; `apiKey` when left out (the API key, when on, guards every path not declared `open`). */
  readonly security?: RouteSecurity;
  /** Whether `BODY_LIMIT_BYTES` caps its request body (413 `payload_too_large`). */
  readonly bodyLimit?: boolean;
  /** Its role in topic contract v1.0; left out for a route the contract does not name. */
  readonly contract?: ContractRole;
  /**
   * Media types its 401 takes besides problem+json, for a router whose before-auth middleware
   * reshapes the refusals of its paths (`/mcp` answers an MCP client a JSON-RPC error).
   */
  readonly refusalContent?: Readonly<Record<string, unknown>>;
}
