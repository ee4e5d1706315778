export * from './primitives.ts';
export * from './spec.ts';
export * from './status.ts';
export * from './template.ts';
export * from './resource.ts';
export * from './names.ts';
export * from './lifetime.ts';
export * from './verdict.ts';
