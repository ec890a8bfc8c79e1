import { isReadOnly } from '../../protocol/index.ts';
import { forbidden } from '../../shared/index.ts';
import type { Role } from '../db/schema.ts';

/** Who is asking, in which project: every service call is made on behalf of one authenticated user. */
export interface ErpContext {
  userId: number;
  username: string;
  role: Role;
  projectId: string;
  traceId?: string;
}

export const nowIso = () => new Date().toISOString();

/** Prices are stored as integers in 1/10000 yuan; the API speaks yuan. */
export const toE4 = (yuan: number) => Math.round(yuan * 10_000);
export const fromE4 = (e4: number) => Number(e4) / 10_000;

/** Writes are for buyers and admins: a viewer's is refused whichever way it arrives. */
export function requireWriter(ctx: ErpContext): void {
  if (isReadOnly(ctx)) throw forbidden('只读用户不能修改数据 / a viewer cannot change data');
}
