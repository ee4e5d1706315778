export {
  HttpError,
  badRequest,
  unauthenticated,
  forbidden,
  notFound,
  conflict,
  policyViolation,
} from './http-error.ts';
export { errorHandler, validationError, fieldPath } from './handler.ts';
