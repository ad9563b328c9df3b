/**
 * The layers of actorkit, lowest first: a folder may import only folders listed before it
 * (and itself). One total order means no two folders can import each other, so the folder
 * graph has no cycle. docs/architecture.md explains each layer.
 */
const LAYERS = [
  ['core', 'src/core/'],
  ['log', 'src/log/'],
  ['environment', 'src/environment/'],
  ['telemetry', 'src/telemetry/'],
  ['store', 'src/store/'],
  ['config', 'src/config/'],
  ['invoke', 'src/invoke/'],
  ['agent', 'src/agent/'],
  ['context', 'src/context/'],
  ['sdk', 'src/sdk/(?!index\\.ts$)'],
  ['middleware', 'src/middleware/'],
  ['oauth', 'src/oauth/'],
  ['route-kit', 'src/route-kit/'],
  ['features', 'src/features/'],
  ['routes', 'src/routes/'],
  ['surfaces', 'src/surfaces/'],
  ['app', 'src/app/'],
  ['adapter', 'src/adapter/'],
  ['testing', 'src/testing/'],
  ['entries', '(src/index\\.ts|src/sdk/index\\.ts|src/http/index\\.ts|cli/|platform/)'],
];

/**
 * The package's public entries: the src/ files package.json `exports` names (`./dist/src/index.js`
 * → `src/index.ts`), read from it, not copied. The CLI and the local platform are written as users
 * of the package: they import src/ only through these files, never a module behind them.
 */
const { exportedFiles } = require('./scripts/package-exports.mjs');
const PUBLIC_ENTRIES = `^(${exportedFiles(__dirname)
  .filter((target) => target.startsWith('./dist/src/'))
  .map((target) => target.slice('./dist/'.length).replace(/\.js$/, '.ts').replace(/[.]/g, '\\.'))
  .join('|')})$`;

/** Test files import the test factories of the top layer; they are checked by the type checker, not here. */
const TESTS = '\\.test\\.ts$';

const upward = LAYERS.slice(0, -1).map(([name, path], index) => ({
  name: `layer-${name}`,
  comment: `${name} is a lower layer: it must not import ${LAYERS.slice(index + 1).map(([higher]) => higher).join(', ')}`,
  severity: 'error',
  from: { path: `^${path}`, pathNot: TESTS },
  to: { path: `^(${LAYERS.slice(index + 1).map(([, higher]) => higher).join('|')})` },
}));

/** @type {import('dependency-cruiser').IConfiguration} */
module.exports = {
  forbidden: [
    ...upward,
    {
      name: 'no-circular',
      comment:
        'Files must not import each other in a circle, lazy import() hops included: a verb that loads the verb table back, or a platform that loads the CLI whose verb loads it, is a circle even when it cannot deadlock',
      severity: 'error',
      from: { pathNot: TESTS },
      to: { circular: true },
    },
    {
      name: 'cli-through-public-entries',
      comment: 'The CLI uses the package as its users do: it imports src/ only through a public entry (package.json exports)',
      severity: 'error',
      from: { path: '^cli/', pathNot: TESTS },
      to: { path: '^src/', pathNot: PUBLIC_ENTRIES },
    },
    {
      name: 'cli-uses-platform-through-its-entry',
      comment: 'The `platform` verb is a shell over actorkit/platform: the CLI imports platform/ only through platform/index.ts',
      severity: 'error',
      from: { path: '^cli/', pathNot: TESTS },
      to: { path: '^platform/', pathNot: '^platform/index\\.ts$' },
    },
    {
      name: 'platform-through-public-entries',
      comment: 'The local platform uses the package as its users do: src/ through its public entries, the CLI only through actorkit/cli/library (not the verbs, one of which loads the platform)',
      severity: 'error',
      from: { path: '^platform/', pathNot: TESTS },
      to: { path: '^(src|cli)/', pathNot: `${PUBLIC_ENTRIES}|^cli/library\\.ts$` },
    },
    {
      name: 'no-feature-to-feature',
      comment: 'A feature folder never imports another one: features meet only in the turn (src/invoke) and in the route table (src/routes)',
      severity: 'error',
      from: { path: '^src/features/([^/]+)/', pathNot: TESTS },
      to: { path: '^src/features/', pathNot: '^src/features/$1/' },
    },
    {
      name: 'fetch-only-core',
      comment: 'The core, the turn, the context, the route kit, the features, the routes and the composition see only Fetch types: runtime modules belong in src/adapter',
      severity: 'error',
      from: { path: '^src/(core|invoke|context|route-kit|features|routes|middleware|surfaces|app)/', pathNot: TESTS },
      to: { dependencyTypes: ['core'] },
    },
  ],
  options: {
    doNotFollow: { path: 'node_modules' },
    exclude: { path: '(^|/)(node_modules|dist)/' },
    tsPreCompilationDeps: true,
    tsConfig: { fileName: 'tsconfig.json' },
    enhancedResolveOptions: { exportsFields: ['exports'], conditionNames: ['import', 'require', 'node', 'default', 'types'], extensions: ['.ts', '.js', '.json'] },
  },
};
