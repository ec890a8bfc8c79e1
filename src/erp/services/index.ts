import type { ErpDatabase } from '../db/database.ts';
import { PartSearchIndex } from '../db/part-search.ts';
import { AuditLog } from './audit.ts';
import { InventoryService } from './inventory.ts';
import { OrderBook } from './orders.ts';
import { PartCatalog } from './parts.ts';
import { SupplierDirectory } from './suppliers.ts';
import { UserDirectory } from './users.ts';

export type ErpServices = ReturnType<typeof createErpServices>;

/** One instance of each ERP service over one database. */
export function createErpServices(database: ErpDatabase) {
  const { db } = database;
  return {
    dialect: database.dialect,
    users: new UserDirectory(db),
    suppliers: new SupplierDirectory(db),
    parts: new PartCatalog(db, database.read, new PartSearchIndex(database.dialect)),
    orders: new OrderBook(db),
    inventory: new InventoryService(db),
    audit: new AuditLog(db),
  };
}
