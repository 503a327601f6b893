// The layering of src/ (issue 11), checked by test/unit/layering.test.ts in the tap suite (`npm run tap`, so
// `npm test`; `npm run layers` runs it alone):
// - an inbound/outbound binding never imports another binding (N + N, never N × N);
// - the core, the pipeline and the shared HTTP pieces import no binding and no server code;
// - errors/, proto/ and gen/ are leaves: they import nothing else of src/.
/** @type {import('dependency-cruiser').IConfiguration} */
module.exports = {
  forbidden: [
    {
      name: 'no-binding-to-binding',
      comment: 'A binding talks to the others only through the envelope: no import between binding folders.',
      severity: 'error',
      from: { path: '^src/bindings/([^/]+)/' },
      to: { path: '^src/bindings/', pathNot: '^src/bindings/$1/' },
    },
    {
      name: 'core-is-binding-free',
      comment: 'core/, pipeline/, http/, routing/, upstream/ and card/ know no binding and no server.',
      severity: 'error',
      from: { path: '^src/(core|pipeline|http|routing|upstream|card|auth|errors|proto)/' },
      to: { path: '^src/(bindings|server|cli)/' },
    },
    {
      name: 'leaves-stay-leaves',
      comment: 'errors/, proto/ and gen/ import only each other.',
      severity: 'error',
      from: { path: '^src/(errors|proto|gen)/' },
      to: { path: '^src/', pathNot: '^src/(errors|proto|gen)/' },
    },
  ],
  options: {
    doNotFollow: { path: 'node_modules' },
    tsPreCompilationDeps: true,
    tsConfig: { fileName: 'tsconfig.json' },
    exclude: { path: '^src/gen/' },
  },
};
