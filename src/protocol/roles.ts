import { z } from 'zod';

/** ERP roles: `admin`, `buyer` (may order) and `viewer` (read-only). */
export const ROLES = ['admin', 'buyer', 'viewer'] as const;
export const RoleSchema = z.enum(ROLES);
export type Role = z.infer<typeof RoleSchema>;

/** The read-only rule, in one place: a viewer, or a run marked read-only, never gets to write. */
export function isReadOnly(ctx: { role?: Role | string; readOnly?: boolean } | undefined): boolean {
  return ctx?.readOnly === true || ctx?.role === 'viewer';
}
