export { type ActingUser as ApiUser, ErpUsers } from '../erp/index.ts';
