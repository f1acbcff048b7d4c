import { readFile } from 'node:fs/promises';

const modules = new Map<string, Promise<WebAssembly.Module>>();

/** The WebAssembly module at `path`, compiled once per process (each user instantiates it on its own memory). */
export function compileWasm(path: string): Promise<WebAssembly.Module> {
  let module = modules.get(path);
  if (!module) {
    module = readFile(path).then((bytes) => WebAssembly.compile(bytes));
    modules.set(path, module);
    module.catch(() => modules.delete(path));
  }
  return module;
}
