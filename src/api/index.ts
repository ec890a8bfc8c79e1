export type { DemoUser } from './app.ts';
export type { ApiUser } from './auth.ts';
export type { RunLimits } from './runs.ts';
export { type Api, type ApiOptions, createApi, DEFAULT_LIMITS, startApiServer, WEB_DIST } from './server.ts';
