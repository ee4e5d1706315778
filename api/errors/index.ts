export {
  HttpError,
  badRequest,
  unauthenticated,
  forbidden,
  notFound,
  conflict,
  policyViolation,
} from './http-error.ts';
export { errorHandler, validationError, fieldPath, type ErrorTranslator } from './handler.ts';
