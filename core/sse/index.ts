export { SSE_MAX_EVENT_SIZE, SseEventTooLarge, SseParser } from './parser.ts';
export type { SseMessage } from './parser.ts';
