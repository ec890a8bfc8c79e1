export {
  type ErpAnswer,
  type ErpConnection,
  ErpHttpError,
  type ErpRequest,
  erpExchange,
  erpRequest,
  erpUrl,
} from './client/http.ts';
export { type ActingUser, ErpUsers } from './client/users.ts';
export type {
  CreateOrderInput,
  InventoryWarning,
  Order,
  OrderLine,
  OrderPreview,
  Page,
  Part,
  Rfq,
  RfqAwardPreview,
  RfqProposal,
  RfqStatus,
  Supplier,
  UpdateOrderInput,
} from './contract.ts';
export * as contract from './contract.ts';
export {
  type ApprovalDecision,
  type ApprovalPolicy,
  PRICE_SEVERITIES,
  type PriceCheck,
  type PriceHistory,
  type PriceSeverity,
  type SupplierScorecard,
} from './contract.ts';
export { dropPostgresSchema, type ErpDatabase, openErpDatabase } from './db/database.ts';
export { ORDER_STATUSES, type OrderStatus, type Role } from './db/schema.ts';
export * from './demo/catalogue.ts';
export { isJwt, MCP_SCOPE, type OAuthSettings } from './oauth/keys.ts';
export {
  ACCESS_TOKEN_TTL_S,
  type AuthorizationServerOptions,
  createAuthorizationServer,
  startAuthorizationServer,
} from './oauth/server.ts';
export { DEMO_USERS, seedBulkParts, seedDemoData } from './seed.ts';
export { createErp, type Erp, type ErpOptions, startErpServer } from './server.ts';
export type { ErpContext } from './services/context.ts';
export { createErpServices, type ErpServices } from './services/index.ts';
export type { InvitationView, RfqBook, RfqMessage } from './services/rfqs.ts';
export type { ErpUser } from './services/users.ts';
