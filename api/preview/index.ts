export { previewRoutes, previewTarget, sandboxdPort } from './routes.ts';
export { PreviewTargets, parseHostAddress } from './target.ts';
export { previewUpgrade } from './upgrade.ts';
export {
  previewCredentials,
  PREVIEW_COOKIE,
  PREVIEW_SESSION_TTL_MS,
  PREVIEW_TICKET_TTL_MS,
} from './signin.ts';
