/**
 * The import graph's rules (dependency-cruiser). test/imports.test.ts runs them; `npx depcruise src web/src` shows
 * the same findings on the command line.
 *
 * Layers run one way, lowest first: a part imports parts of its own layer or below, never above.
 * The browser UI (web/) sits beside them and speaks to the server only through the wire contracts (src/protocol).
 */
const layers = [
  ['shared'],
  ['protocol'],
  ['erp', 'charts', 'suppliers'],
  ['mcp', 'tools'],
  ['agent'],
  ['api'],
  ['cli'],
];

const above = (index) => layers.slice(index + 1).flat();
const folders = (parts) => `^src/(${parts.join('|')})/`;

/** @type {import('dependency-cruiser').IConfiguration} */
export default {
  forbidden: [
    {
      name: 'no-cycle',
      comment: 'A loop makes the parts of it one part: start-up order, tests and reading all need every file at once.',
      severity: 'error',
      from: {},
      to: { circular: true },
    },
    ...layers.slice(0, -1).map((parts, index) => ({
      name: `layer-${parts.join('-')}`,
      comment: `${parts.join(', ')} may import only its own layer and those below: ${layers.slice(0, index).flat().join(', ') || 'nothing'}.`,
      severity: 'error',
      from: { path: folders(parts) },
      to: { path: folders(above(index)) },
    })),
    {
      name: 'part-face',
      comment: "One part reaches another only through that part's index.ts: the index is its whole public face.",
      severity: 'error',
      from: { path: '^src/([^/]+)/' },
      to: { path: '^src/', pathNot: ['^src/$1/', '^src/[^/]+/index\\.ts$'] },
    },
    {
      name: 'web-speaks-protocol',
      comment: 'The browser UI shares only the wire contracts with the server.',
      severity: 'error',
      from: { path: '^web/' },
      to: { path: '^src/', pathNot: '^src/protocol/index\\.ts$' },
    },
    {
      name: 'core-stays-core',
      comment: 'The server never imports the browser UI, the tests, the benchmarks or the scripts.',
      severity: 'error',
      from: { path: '^src/' },
      to: { path: '^(web|test|bench|scripts)/' },
    },
  ],
  options: {
    doNotFollow: { path: 'node_modules' },
    exclude: { path: '\\.test\\.tsx?$' },
    tsPreCompilationDeps: true,
    tsConfig: { fileName: 'tsconfig.json' },
    enhancedResolveOptions: { extensions: ['.ts', '.tsx', '.js', '.mjs', '.json'] },
  },
};
