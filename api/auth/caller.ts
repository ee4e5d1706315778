/** Who is calling, as the auth middleware established it. */
export interface Caller {
  /** Stable user name: the API key's user, or the token's configured claim (default `sub`). */
  user: string;
  groups: string[];
  isAdmin: boolean;
  via: 'api-key' | 'oidc' | 'ticket';
  /** The token's `name` and `email` claims, when it has them (shown by `GET /user/me`). */
  name?: string;
  email?: string;
}

declare module 'hono' {
  interface ContextVariableMap {
    caller: Caller;
  }
}
