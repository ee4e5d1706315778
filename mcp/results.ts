// What a tool answers: its result as one text content (JSON unless it is a file's text), or
// a tool error (`isError: true`) carrying the API's status, error code and message. A tool
// never throws: a refusal is an answer the model reads, and the session goes on.
import type { CallToolResult } from '@modelcontextprotocol/sdk/types.js';
import { ApiFailure } from './api.ts';

/**
 * The most characters of one output (an exec's stdout, a file's text) a tool answers with:
 * a model's context is the scarce thing, and the API keeps the rest reachable (files).
 */
export const MAX_TOOL_OUTPUT = 32 * 1024;

/** A failure of the tool itself (a wait that ran out), not a refusal of the API. */
export class ToolFailure extends Error {
  override name = 'ToolFailure';
  readonly code: string;

  constructor(code: string, message: string) {
    super(message);
    this.code = code;
  }
}

/** A successful answer: text as it is, anything else as JSON. */
export function answer(value: unknown): CallToolResult {
  return {
    content: [{ type: 'text', text: typeof value === 'string' ? value : JSON.stringify(value, null, 2) }],
  };
}

/** A tool error: the API's refusal as `{status, error, message, …}`, or why the API was not reached. */
export function failure(err: unknown): CallToolResult {
  const body =
    err instanceof ApiFailure
      ? { status: err.status, ...err.body }
      : err instanceof ToolFailure
        ? { error: err.code, message: err.message }
        : err instanceof Error && err.name === 'AbortError'
          ? { error: 'canceled', message: 'the call was canceled' }
          : {
              error: 'unavailable',
              message: `the API could not be reached: ${(err as Error).message ?? String(err)}`,
            };
  return { isError: true, content: [{ type: 'text', text: JSON.stringify(body) }] };
}

/** Runs a tool's body; whatever it throws becomes a tool error. */
export async function guarded(body: () => Promise<CallToolResult>): Promise<CallToolResult> {
  try {
    return await body();
  } catch (err) {
    return failure(err);
  }
}

/**
 * Output held to `max` characters as it arrives: its head and its tail (a command's first
 * lines say what it did, its last ones how it ended), and a count of what was cut between.
 */
export class Clipped {
  readonly #half: number;
  readonly #max: number;
  #head = '';
  #tail = '';
  #total = 0;

  constructor(max = MAX_TOOL_OUTPUT) {
    this.#max = max;
    this.#half = Math.floor(max / 2);
  }

  push(text: string): this {
    this.#total += text.length;
    const room = this.#half - this.#head.length;
    if (room > 0) {
      this.#head += text.slice(0, room);
      text = text.slice(room);
    }
    if (text !== '') this.#tail = (this.#tail + text).slice(-this.#half);
    return this;
  }

  /** The text kept; `note` says what was cut, when anything was. */
  result(): { text: string; note?: string } {
    const cut = this.#total - this.#head.length - this.#tail.length;
    if (cut <= 0) return { text: this.#head + this.#tail };
    return {
      text: `${this.#head}\n[… ${cut} characters cut …]\n${this.#tail}`,
      note: `${cut} of ${this.#total} characters were cut from the middle (at most ${this.#max} are answered)`,
    };
  }
}

/** `text` held to `max` characters as `Clipped` holds it. */
export const clip = (text: string, max = MAX_TOOL_OUTPUT) => new Clipped(max).push(text).result();
