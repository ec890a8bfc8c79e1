import type { Kysely } from 'kysely';
import { seededRandom } from '../shared/index.ts';
import type { ErpDatabase } from './db/database.ts';
import { categoryTerms, PartSearchIndex } from './db/part-search.ts';
import type { ErpTables, OrderStatus, Role } from './db/schema.ts';
import { type Catalogue, DEMO_CATALOGUE, DEMO_PROJECTS, demoParts, PRODUCT_LINES } from './demo/catalogue.ts';
import { nowIso, toE4 } from './services/context.ts';
import { receiveHistory } from './services/receipts.ts';
import { UserDirectory } from './services/users.ts';

export const DEMO_USERS: ReadonlyArray<{ username: string; displayName: string; role: Role; projectIds: string[] }> = [
  { username: 'laoxiao', displayName: '老肖', role: 'buyer', projectIds: ['P001'] },
  { username: 'viewer', displayName: '访客', role: 'viewer', projectIds: ['P001'] },
  { username: 'admin', displayName: '管理员', role: 'admin', projectIds: ['P001', 'P002'] },
  { username: 'zhangwei', displayName: '张伟', role: 'buyer', projectIds: ['P002'] },
];

/** Parts deliberately below safety stock, so the inventory warning has something to say. */
const LOW_STOCK_CODES = new Set([
  'TC-F7TC',
  'BS-D8TC',
  'DD-428H-118L',
  'CY-2.75-18',
  'BR-BP-125F',
  'VT-YTX7L-BS',
  'MH-OF-W712',
]);

/** A demo part as the order history needs it. */
interface SeededPart {
  id: number;
  projectId: string;
  supplierId: number;
  price: number;
  moq: number;
  code: string;
  model: string;
}

/** Whether the database already holds the demo data (seeding happens once, on first start). */
export async function isSeeded(db: Kysely<ErpTables>): Promise<boolean> {
  const row = await db.selectFrom('projects').select('id').limit(1).executeTakeFirst();
  return row !== undefined;
}

/**
 * Seeds projects, demo users (returning a fresh token for each), and from the catalogue (the demo company's unless
 * given) the categories, suppliers, parts, inventory and 12 months of order history ending today. Deterministic
 * apart from dates and tokens.
 */
export async function seedDemoData(
  database: ErpDatabase,
  now = new Date(),
  catalogue: Catalogue = DEMO_CATALOGUE,
): Promise<Record<string, string>> {
  const { db } = database;
  const index = new PartSearchIndex(database.dialect);
  await db.transaction().execute(async (trx) => {
    await trx
      .insertInto('projects')
      .values(DEMO_PROJECTS.map((p) => ({ id: p.id, name_zh: p.nameZh, name_en: p.nameEn })))
      .execute();
    const created = nowIso();
    await trx
      .insertInto('users')
      .values(
        DEMO_USERS.map((u) => ({
          username: u.username,
          display_name: u.displayName,
          role: u.role,
          project_ids: u.projectIds.join(','),
          created_at: created,
        })),
      )
      .execute();
    const parts = demoParts(catalogue);
    for (const project of DEMO_PROJECTS) {
      const used = new Set(parts.filter((p) => p.projectId === project.id).map((p) => p.category));
      const categories = catalogue.categories.filter((c) => used.has(c.code));
      if (!categories.length) continue;
      await trx
        .insertInto('categories')
        .values(
          categories.map((c) => ({
            project_id: project.id,
            code: c.code,
            name_zh: c.nameZh,
            name_en: c.nameEn,
            synonyms_zh: JSON.stringify(c.synonymsZh),
            synonyms_en: JSON.stringify(c.synonymsEn),
          })),
        )
        .execute();
    }
    const terms = await categoryTerms(
      trx,
      DEMO_PROJECTS.map((p) => p.id),
    );
    const supplierIds = new Map<string, number>();
    for (const project of DEMO_PROJECTS) {
      for (const s of catalogue.suppliers.filter((x) => x.projects.includes(project.id))) {
        const row = await trx
          .insertInto('suppliers')
          .values({
            project_id: project.id,
            key: s.key,
            name_zh: s.nameZh,
            name_en: s.nameEn,
            contact_name: s.contactName,
            contact_phone: s.contactPhone,
            contact_email: s.contactEmail,
            city: s.city,
            province: s.province,
            rating: s.rating,
            lead_time_days: s.leadTimeDays,
            payment_terms: s.paymentTerms,
          })
          .returning('id')
          .executeTakeFirstOrThrow();
        supplierIds.set(`${project.id}/${s.key}`, Number(row.id));
      }
    }
    const random = seededRandom(20260509);
    const partRows: SeededPart[] = [];
    for (const p of parts) {
      const supplierId = supplierIds.get(`${p.projectId}/${p.supplierKey}`)!;
      const row = await trx
        .insertInto('parts')
        .values({
          project_id: p.projectId,
          supplier_id: supplierId,
          code: p.code,
          model: p.model,
          category: p.category,
          name_zh: p.nameZh,
          name_en: p.nameEn,
          spec: p.spec,
          unit: p.unit,
          unit_price_e4: toE4(p.unitPrice),
          moq: p.moq,
        })
        .returning('id')
        .executeTakeFirstOrThrow();
      const id = Number(row.id);
      partRows.push({
        id,
        projectId: p.projectId,
        supplierId,
        price: p.unitPrice,
        moq: p.moq,
        code: p.code,
        model: p.model,
      });
      await index.write(
        trx,
        [
          {
            id,
            project_id: p.projectId,
            code: p.code,
            model: p.model,
            category: p.category,
            name_zh: p.nameZh,
            name_en: p.nameEn,
          },
        ],
        terms,
      );
      const safety = p.moq * 2;
      const low = LOW_STOCK_CODES.has(p.code);
      await trx
        .insertInto('inventory')
        .values({
          part_id: id,
          project_id: p.projectId,
          on_hand: low ? Math.floor(safety * (0.2 + random() * 0.6)) : Math.floor(safety * (1.6 + random() * 3)),
          safety_stock: safety,
          reorder_point: safety * 2,
          location: `${p.projectId === 'P001' ? 'A' : 'B'}-${String(1 + Math.floor(random() * 12)).padStart(2, '0')}-${String(1 + Math.floor(random() * 40)).padStart(2, '0')}`,
          updated_at: created,
        })
        .execute();
    }
    await seedOrderHistory(trx, partRows, now, random, catalogue);
    await receiveHistory(trx);
  });
  const users = new UserDirectory(db);
  const tokens: Record<string, string> = {};
  for (const u of DEMO_USERS) tokens[u.username] = await users.issueToken(u.username, 'demo');
  return tokens;
}

async function seedOrderHistory(
  trx: Kysely<ErpTables>,
  parts: SeededPart[],
  now: Date,
  random: () => number,
  catalogue: Catalogue,
) {
  const users = await trx.selectFrom('users').select(['id', 'username']).execute();
  const buyerOf = (projectId: string) =>
    Number(users.find((u) => u.username === (projectId === 'P001' ? 'laoxiao' : 'zhangwei'))!.id);
  const categoryOf = new Map(catalogue.lines.map((l) => [l.model, l.category]));
  const leadTimeOf = new Map(
    (await trx.selectFrom('suppliers').select(['id', 'lead_time_days']).execute()).map((s) => [
      Number(s.id),
      s.lead_time_days,
    ]),
  );
  let seq = 0;
  for (let monthsAgo = 11; monthsAgo >= 0; monthsAgo--) {
    for (const projectId of ['P001', 'P002']) {
      const projectParts = parts.filter((p) => p.projectId === projectId);
      if (!projectParts.length) continue;
      const count = projectId === 'P001' ? 14 + Math.floor(random() * 8) : 4 + Math.floor(random() * 3);
      for (let n = 0; n < count; n++) {
        const day = 1 + Math.floor(random() * 27);
        const created = new Date(
          Date.UTC(
            now.getUTCFullYear(),
            now.getUTCMonth() - monthsAgo,
            day,
            1 + Math.floor(random() * 9),
            Math.floor(random() * 60),
          ),
        );
        if (created > now) continue;
        const first = projectParts[Math.floor(random() * projectParts.length)];
        const sameSupplier = projectParts.filter((p) => p.supplierId === first.supplierId);
        const lineParts = [first, ...sameSupplier.filter((p) => p !== first && random() < 0.25).slice(0, 2)];
        const status: OrderStatus =
          monthsAgo >= 2
            ? random() < 0.06
              ? 'cancelled'
              : 'received'
            : (['received', 'ordered', 'approved', 'pending_approval', 'draft'] as const)[Math.floor(random() * 5)];
        const at = created.toISOString();
        seq++;
        const order = await trx
          .insertInto('orders')
          .values({
            project_id: projectId,
            order_no: `PO-${at.slice(0, 7).replace('-', '')}-H${String(seq).padStart(5, '0')}`,
            supplier_id: first.supplierId,
            status,
            expected_date: new Date(created.getTime() + 14 * 86_400_000).toISOString().slice(0, 10),
            note: '',
            version: 1,
            created_by: buyerOf(projectId),
            created_at: at,
            updated_at: at,
            // Deliveries follow the supplier's lead time with a few days either way (not drawn from `random`, so
            // the rest of the seed stays as it was).
            received_at:
              status === 'received'
                ? new Date(
                    Math.min(
                      now.getTime(),
                      created.getTime() +
                        ((leadTimeOf.get(first.supplierId) ?? 14) + ((seq * 7919) % 9) - 3) * 86_400_000,
                    ),
                  ).toISOString()
                : null,
          })
          .returning('id')
          .executeTakeFirstOrThrow();
        await trx
          .insertInto('order_lines')
          .values(
            lineParts.map((p, i) => {
              const drift = (catalogue.yearlyDrift[categoryOf.get(p.model) ?? ''] ?? 0) * ((11 - monthsAgo) / 11 - 1);
              const price = p.price * (1 + drift + (random() - 0.5) * 0.06);
              return {
                order_id: Number(order.id),
                line_no: i + 1,
                part_id: p.id,
                quantity: p.moq * (1 + Math.floor(random() * 6)),
                unit_price_e4: toE4(Math.round(price * 100) / 100),
              };
            }),
          )
          .execute();
      }
    }
  }
}

const BULK_WORDS_ZH = ['加强型', '经济型', '原厂', '高性能', '长寿命', '静音', '耐高温', '改装'];
const BULK_WORDS_EN = ['Heavy-duty', 'Economy', 'OEM', 'Performance', 'Long-life', 'Silent', 'High-temp', 'Custom'];

/**
 * Adds `count` synthetic catalogue parts to a project (variants of the product lines across its suppliers),
 * for benchmarks at realistic catalogue sizes. Reports progress as it goes.
 */
export async function seedBulkParts(
  database: ErpDatabase,
  projectId: string,
  count: number,
  onProgress?: (done: number, total: number) => void,
): Promise<void> {
  const { db } = database;
  const index = new PartSearchIndex(database.dialect);
  const suppliers = await db.selectFrom('suppliers').select(['id']).where('project_id', '=', projectId).execute();
  const random = seededRandom(count);
  const chunk = 500;
  for (let start = 0; start < count; start += chunk) {
    const batch = Array.from({ length: Math.min(chunk, count - start) }, (_, k) => {
      const i = start + k;
      const line = PRODUCT_LINES[i % PRODUCT_LINES.length];
      const variant = Math.floor(i / PRODUCT_LINES.length);
      const w = variant % BULK_WORDS_ZH.length;
      return {
        line,
        supplierId: Number(suppliers[Math.floor(random() * suppliers.length)].id),
        price: toE4(Math.round(line.basePrice * (0.7 + random() * 0.7) * 100) / 100),
        code: `BK${String(i).padStart(6, '0')}-${line.model}`,
        model: `${line.model}-V${variant}`,
        nameZh: `${BULK_WORDS_ZH[w]}${line.nameZh} V${variant}`,
        nameEn: `${BULK_WORDS_EN[w]} ${line.nameEn} V${variant}`,
        category: line.category,
      };
    });
    await db.transaction().execute(async (trx) => {
      const rows = await trx
        .insertInto('parts')
        .values(
          batch.map((p) => ({
            project_id: projectId,
            supplier_id: p.supplierId,
            code: p.code,
            model: p.model,
            category: p.category,
            name_zh: p.nameZh,
            name_en: p.nameEn,
            spec: p.line.spec,
            unit: p.line.unit,
            unit_price_e4: p.price,
            moq: p.line.moq,
          })),
        )
        .returning(['id', 'code', 'project_id', 'model', 'category', 'name_zh', 'name_en'])
        .execute();
      await index.write(
        trx,
        rows.map((r) => ({ ...r, id: Number(r.id) })),
      );
    });
    onProgress?.(Math.min(count, start + chunk), count);
  }
  // Fresh statistics after a bulk load, or the query planner keeps the plans of an empty catalogue.
  await index.compact(db);
}
