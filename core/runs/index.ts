export * from './runs.ts';
