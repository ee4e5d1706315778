export { SandboxdKey, sandboxdToken } from './token.ts';
