export { SandboxdKey, sandboxdToken, ticketKey } from './token.ts';
