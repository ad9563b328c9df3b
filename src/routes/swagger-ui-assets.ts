import type { RuntimeBindings } from '../core/runtime-bindings.js';

/** The optional package whose Swagger UI `/docs` serves when it is installed. */
export const SWAGGER_UI_PACKAGE = 'swagger-ui-dist';

/** The files of Swagger UI the `/docs` page loads, by the name `/docs?asset=` gives, with their media type. */
export const SWAGGER_UI_ASSETS = {
  'swagger-ui-bundle.js': 'text/javascript; charset=utf-8',
  'swagger-ui.css': 'text/css; charset=utf-8',
} as const satisfies Record<string, string>;

/** The name of a Swagger UI file `/docs` serves. */
export type SwaggerUiAssetName = keyof typeof SWAGGER_UI_ASSETS;

/** Swagger UI's files, read once: their text by name. */
export type SwaggerUiAssets = ReadonlyMap<SwaggerUiAssetName, string>;

/**
 * Reads Swagger UI's files through the runtime on first use and keeps them: undefined when
 * the runtime cannot read installed packages (`app.request` in tests) — asked again next time —
 * or when `swagger-ui-dist` is not installed — then for good.
 */
export function swaggerUiLoader(): (runtime: RuntimeBindings | undefined) => Promise<SwaggerUiAssets | undefined> {
  let loaded: Promise<SwaggerUiAssets | undefined> | undefined;
  return function loadSwaggerUi(runtime) {
    if (runtime?.readPackageFile === undefined) return Promise.resolve(undefined);
    loaded ??= (async () => {
      const names = Object.keys(SWAGGER_UI_ASSETS) as SwaggerUiAssetName[];
      const texts = await Promise.all(names.map((name) => runtime.readPackageFile!(`${SWAGGER_UI_PACKAGE}/${name}`)));
      if (texts.some((text) => text === undefined)) return undefined;
      return new Map(names.map((name, index) => [name, texts[index]!]));
    })();
    return loaded;
  };
}
