export {
  DEMO_SESSION_PREFIX,
  DEMO_SESSION_TTL_MS,
  DEMO_SIGNIN_ENV,
  DemoSignIn,
  type DemoSignInMode,
  type DemoUser,
  demoSignInMode,
} from './admin/demo.ts';
export type { ApiUser } from './auth.ts';
export type { RunLimits } from './chat/runs.ts';
export { quoteFormPath } from './rfqs/quote-form.ts';
export { type Api, type ApiOptions, createApi, DEFAULT_LIMITS, startApiServer, WEB_DIST } from './server.ts';
