export { AuditRecorder, AuditAnnotations } from './recorder.ts';
export type { AuditEntry } from './recorder.ts';
export { auditRoutes } from './routes.ts';
export type { AuditRecord } from './routes.ts';
