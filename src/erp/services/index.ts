import type { ErpDatabase } from '../db/database.ts';
import { PartSearchIndex } from '../db/part-search.ts';
import { ApprovalPolicies } from './approval-policy.ts';
import { AuditLog } from './audit.ts';
import { InventoryService } from './inventory.ts';
import { InvoiceBook } from './invoices.ts';
import { OrderBook } from './orders.ts';
import { PartCatalog } from './parts.ts';
import { PriceChecks } from './price-checks.ts';
import { PriceHistories } from './price-history.ts';
import { ReceiptBook } from './receipts.ts';
import { RfqBook } from './rfqs.ts';
import { SupplierScorecards } from './scorecards.ts';
import { SourcingDesk } from './sourcing.ts';
import { SupplierDirectory } from './suppliers.ts';
import { UserDirectory } from './users.ts';

export type ErpServices = ReturnType<typeof createErpServices>;

/** One instance of each ERP service over one database. */
export function createErpServices(database: ErpDatabase) {
  const { db } = database;
  const priceChecks = new PriceChecks(db);
  const policies = new ApprovalPolicies(db);
  const orders = new OrderBook(db, { priceChecks, policies });
  const rfqs = new RfqBook(db, orders);
  const scorecards = new SupplierScorecards(db);
  return {
    dialect: database.dialect,
    users: new UserDirectory(db),
    suppliers: new SupplierDirectory(db),
    parts: new PartCatalog(db, database.read, new PartSearchIndex(database.dialect)),
    orders,
    rfqs,
    receipts: new ReceiptBook(db),
    invoices: new InvoiceBook(db, { policies, rates: rfqs }),
    sourcing: new SourcingDesk(db, { rfqs, scorecards, priceChecks, policies }),
    priceChecks,
    priceHistories: new PriceHistories(db),
    policies,
    scorecards,
    inventory: new InventoryService(db),
    audit: new AuditLog(db),
  };
}
