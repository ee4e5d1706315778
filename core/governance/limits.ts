import type { Violation } from './violations.ts';

/** The spec's configure limits. */
export const CONFIGURE_LIMITS = {
  maxFileBytes: 32 * 1024 * 1024,
  maxRequestBytes: 128 * 1024 * 1024,
  maxFiles: 200,
} as const;

/** Configure size limits, checked before anything is written; sizes are decoded bytes. */
export function checkConfigureLimits(files: { path: string; size: number }[]): Violation[] {
  const v: Violation[] = [];
  if (files.length > CONFIGURE_LIMITS.maxFiles) {
    v.push({
      code: 'configure_too_many_files',
      message: `${files.length} files; at most ${CONFIGURE_LIMITS.maxFiles} per request`,
    });
  }
  for (const f of files) {
    if (f.size > CONFIGURE_LIMITS.maxFileBytes) {
      v.push({
        code: 'configure_file_too_large',
        message: `${f.path} is ${f.size} bytes; at most ${CONFIGURE_LIMITS.maxFileBytes} (32 MiB) per file`,
      });
    }
  }
  const total = files.reduce((sum, f) => sum + f.size, 0);
  if (total > CONFIGURE_LIMITS.maxRequestBytes) {
    v.push({
      code: 'configure_request_too_large',
      message: `${total} bytes in all; at most ${CONFIGURE_LIMITS.maxRequestBytes} (128 MiB) per request`,
    });
  }
  return v;
}
