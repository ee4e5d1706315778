export { SseParser } from './parser.ts';
export type { SseMessage } from './parser.ts';
