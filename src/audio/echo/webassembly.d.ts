/**
 * The part of the WebAssembly JavaScript API that hark uses. Node has it all; TypeScript
 * declares it only in the DOM and web worker libraries, which hark does not load.
 */
declare namespace WebAssembly {
  class Module {
    constructor(bytes: BufferSource);
  }
  class Memory {
    readonly buffer: ArrayBuffer;
  }
  class Instance {
    readonly exports: Record<string, unknown>;
  }
  function compile(bytes: BufferSource): Promise<Module>;
  function instantiate(module: Module, imports: Record<string, unknown>): Promise<Instance>;
}
