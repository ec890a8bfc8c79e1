export { type ErpUser as ApiUser, ErpUsers } from '../tools/erp/index.ts';
