import type { ToolSpec } from '../dialog/tool-calls.js';

/** What a tool gives back: text for the model, and whether it is the tool saying it failed. */
export interface ToolOutput {
  text: string;
  isError?: boolean;
}

/** A tool hark can run: its description for the model, and the call (cancelled through `signal`). */
export interface Tool extends ToolSpec {
  run(input: Record<string, unknown>, signal: AbortSignal): Promise<ToolOutput>;
}

/** Where tools come from: the built-ins, or an MCP server whose list can change while hark runs. */
export interface ToolSource {
  tools(): readonly Tool[];
}

/** A tool that could not run as asked (unknown name, bad arguments): said to the model, logged, never thrown further. */
export class ToolError extends Error {
  override readonly name = 'ToolError';
}

/** An argument as a string, or undefined when absent; a value of another type is a mistake the model should hear of. */
export function stringArg(input: Record<string, unknown>, name: string): string | undefined {
  const value = input[name];
  if (value === undefined || value === null || value === '') return undefined;
  if (typeof value !== 'string') throw new ToolError(`${name} must be a string`);
  return value;
}

export function numberArg(input: Record<string, unknown>, name: string): number | undefined {
  const value = input[name];
  if (value === undefined || value === null || value === '') return undefined;
  const number = typeof value === 'string' ? Number(value) : value;
  if (typeof number !== 'number' || !Number.isFinite(number)) throw new ToolError(`${name} must be a number`);
  return number;
}
