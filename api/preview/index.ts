export { previewRoutes, previewTarget, sandboxdPort } from './routes.ts';
export { PreviewTargets, parseHostAddress } from './target.ts';
export { previewUpgrade } from './upgrade.ts';
