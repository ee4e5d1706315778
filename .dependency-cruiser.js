// The import table of DESIGN.md ("Layout and dependency direction"), checked by `make lint`
// (`npx depcruise --config .dependency-cruiser.js core kube telemetry operator webhook api
// devnode cmd`). dependency-cruiser rather than eslint-plugin-boundaries: it sees the whole
// graph at once, so "no cycles" is one rule that runs in seconds (eslint's import/no-cycle
// walks the graph again from every file), and a folder-to-folder rule is one regular
// expression with a back-reference instead of an element type per folder.
/** @type {import('dependency-cruiser').IConfiguration} */
export default {
  forbidden: [
    {
      name: 'core-imports-only-zod',
      comment: 'core/ is pure: zod schemas and types, no I/O, nothing of ours below it.',
      severity: 'error',
      from: { path: '^core/' },
      // Allowed: node's crypto, for the hashes DESIGN's table puts in core (install command
      // hash, snapshot marks, the sandboxd token's derivation); pure functions all the same.
      to: { pathNot: ['^core/', '^node_modules/zod/', '^crypto$'] },
    },
    {
      name: 'components-never-import-each-other',
      comment: 'operator, webhook and api share through core or kube, never directly.',
      severity: 'error',
      // Allowed: api/metrics/monitoring.test.ts, the check that the chart's alerts and
      // dashboards name series that exist, registers the operator's metrics beside the API's
      // (a test, which ships in no component).
      from: { path: '^(operator|webhook|api)/', pathNot: '^api/metrics/monitoring\\.test\\.ts$' },
      to: { path: '^(operator|webhook|api)/', pathNot: '^$1/' },
    },
    {
      name: 'lower-layers-import-no-component',
      comment: 'core, kube and telemetry sit under the components; cmd/ alone wires them.',
      severity: 'error',
      from: { path: '^(core|kube|telemetry)/' },
      to: { path: '^(operator|webhook|api|devnode|cmd)/' },
    },
    {
      name: 'components-import-only-lower-layers',
      comment: 'A component (operator, webhook, api, devnode) may import core, kube and telemetry.',
      severity: 'error',
      from: { path: '^(operator|webhook|api|devnode)/', pathNot: '^api/metrics/monitoring\\.test\\.ts$' },
      to: {
        path: '^(operator|webhook|api|devnode|cmd|test|bench|hack|cli|console|clients)/',
        pathNot: '^$1/',
      },
    },
    {
      name: 'top-folders-through-their-door',
      comment: 'Another top-level folder is imported through its index.ts only.',
      severity: 'error',
      from: { path: '^([^/]+)/', pathNot: '^api/metrics/monitoring\\.test\\.ts$' },
      to: {
        path: '^(core|kube|telemetry|operator|webhook|api|devnode)/',
        pathNot: ['^$1/', '^[^/]+/index\\.ts$'],
      },
    },
    {
      name: 'api-folders-through-their-door',
      comment: "Inside api/, another group's folder is imported through its index.ts only.",
      severity: 'error',
      from: { path: '^(api/[^/]+)/', pathNot: '^api/openapi/' },
      to: {
        path: '^api/[^/]+/',
        pathNot: [
          '^$1/',
          '^api/[^/]+/index\\.ts$',
          // Allowed: the operations tables. Each group's operations.ts declares its endpoints
          // with openapi's `operation` and shared refusals, and openapi/document.ts gathers
          // them all; through the doors this would be a cycle (a group's door exports its
          // routes, the routes import openapi's door, which exports the document).
          '^api/openapi/(route|shared|document)\\.ts$',
        ],
      },
    },
    {
      name: 'api-folders-through-their-door',
      comment: 'openapi/document.ts gathers every operations.ts (see the exception above).',
      severity: 'error',
      from: { path: '^api/openapi/' },
      to: {
        path: '^api/[^/]+/',
        pathNot: ['^api/openapi/', '^api/[^/]+/index\\.ts$', '^api/[^/]+/operations\\.ts$'],
      },
    },
    {
      name: 'api-folders-through-their-door',
      comment: 'The same from a file at the top of api/ (app.ts, serve.ts, index.ts).',
      severity: 'error',
      from: { path: '^api/[^/]+\\.ts$' },
      to: { path: '^api/[^/]+/', pathNot: '^api/[^/]+/index\\.ts$' },
    },
    {
      name: 'no-cycles',
      comment: 'No import cycle anywhere this lint looks (api/ included), types aside.',
      severity: 'error',
      from: {},
      to: { circular: true, viaOnly: { dependencyTypesNot: ['type-only'] } },
    },
  ],
  options: {
    doNotFollow: { path: 'node_modules' },
    exclude: { path: ['^node_modules/', '\\.d\\.ts$'] },
    tsConfig: { fileName: 'tsconfig.json' },
    tsPreCompilationDeps: true,
    enhancedResolveOptions: { extensions: ['.ts', '.js', '.json'] },
  },
};
