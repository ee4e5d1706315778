export * from './sandboxes.ts';
