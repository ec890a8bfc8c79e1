import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import Sqlite from 'better-sqlite3';
import { Kysely, PostgresDialect, SqliteDialect, sql } from 'kysely';
import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { migrateToLatest } from '../../src/erp/db/migrations.ts';
import { PartSearchIndex } from '../../src/erp/db/part-search.ts';
import {
  createErp,
  createErpServices,
  dropPostgresSchema,
  type ErpContext,
  openErpDatabase,
  type Part,
  seedBulkParts,
} from '../../src/erp/index.ts';
import { searchQuery } from '../../src/erp/search-tokens.ts';
import type { PartInput } from '../../src/erp/services/parts.ts';
import { BACKENDS, type ErpHarness, startHarness } from './harness.ts';

const databaseUrl = process.env.DATABASE_URL;

for (const backend of BACKENDS) {
  describe.skipIf(!backend.enabled)(`part search ranking (${backend.name})`, () => {
    let h: ErpHarness;
    let admin: ErpContext;
    let supplierId: number;
    let made = 0;

    /** Adds a part through the catalogue service; code and model default to unique values. */
    async function add(fields: Partial<PartInput>): Promise<Part> {
      made++;
      return h.erp.services.parts.create(admin, {
        supplierId,
        code: `T-${backend.name}-${made}`,
        model: `TM${made}`,
        category: 'brake_pad',
        nameZh: '测试件',
        nameEn: 'Test item',
        spec: '',
        unit: '件',
        unitPrice: 10,
        moq: 1,
        ...fields,
      });
    }
    it('refuses a part priced past what the database stores, as a field error', async () => {
      await expect(add({ unitPrice: 250_000 })).rejects.toMatchObject({ status: 422 });
      await expect(add({ unitPrice: -1 })).rejects.toMatchObject({ status: 422 });
    });

    const search = async (name: string, limit = 50) => {
      const res = await h.call('GET', `/api/parts/search?limit=${limit}&name=${encodeURIComponent(name)}`);
      expect(res.status).toBe(200);
      return res.body.items as Part[];
    };
    const list = async (query: string) => {
      const res = await h.call('GET', `/api/parts?${query}`);
      expect(res.status).toBe(200);
      return res.body as { items: Part[]; total: number; totalCapped: boolean };
    };

    beforeAll(async () => {
      h = await startHarness(backend);
      const user = await h.erp.services.users.byUsername('admin');
      admin = { userId: user.id, username: 'admin', role: 'admin', projectId: 'P001' };
      supplierId = (await h.erp.services.suppliers.list(admin))[0].id;
    });
    afterAll(async () => h?.close());

    it('puts the part whose code or model is the query first, ahead of older whole-word matches', async () => {
      const mention = await add({ nameEn: 'Adapter for Qx7731 pads', nameZh: '适配器' });
      const exact = await add({ code: 'QX7731-A', model: 'QX7731', nameEn: 'Brake pad', nameZh: '刹车片' });
      const byModel = await search('qx7731');
      expect(byModel.map((p) => p.id)).toEqual([exact.id, mention.id]);
      const byCode = await search('QX7731-a');
      expect(byCode[0].id).toBe(exact.id);
    });

    it('ranks whole-word matches before prefix matches, each in catalogue order', async () => {
      const prefixOnly = await add({ nameEn: 'Zorblatic shock absorber' });
      const whole1 = await add({ nameEn: 'Zorblat damper' });
      const whole2 = await add({ nameEn: 'Rear zorblat damper' });
      const found = await search('zorblat');
      expect(found.map((p) => p.id)).toEqual([whole1.id, whole2.id, prefixOnly.id]);
      // Two words: both whole beat one whole and one prefix.
      const twoWords = await search('zorblat damper');
      expect(twoWords.map((p) => p.id)).toEqual([whole1.id, whole2.id]);
      const partialWords = await search('zorbl dam');
      expect(partialWords.map((p) => p.id).sort()).toEqual([whole1.id, whole2.id].sort());
      // Paging walks the same order across the tier boundary.
      const page1 = await list('name=zorblat&size=2&page=1');
      const page2 = await list('name=zorblat&size=2&page=2');
      expect([...page1.items, ...page2.items].map((p) => p.id)).toEqual(found.map((p) => p.id));
      expect(page2.total).toBe(3);
      expect(page2.totalCapped).toBe(false);
      // Another project's buyer finds none of them.
      const other = await h.call('GET', '/api/parts/search?name=zorblat', { token: h.tokens.zhangwei });
      expect(other.body.items).toEqual([]);
      expect((await h.call('GET', '/api/parts?name=zorblat', { token: h.tokens.zhangwei })).body.total).toBe(0);
    });

    it('finds Chinese names by 2-character words, longer words, single characters and with English', async () => {
      const a = await add({ nameZh: '麒麟减震器', nameEn: 'Kirin shock' });
      const b = await add({ nameZh: '后麒麟座', nameEn: 'Kirin seat' });
      const c = await add({ nameZh: '麒减麟震', nameEn: 'Scrambled' });
      const ids = (parts: Part[]) => parts.map((p) => p.id);
      expect(ids(await search('麒麟'))).toEqual([a.id, b.id]);
      expect(ids(await search('麒麟减震器'))).toEqual([a.id]);
      expect(ids(await search('麒麟 seat'))).toEqual([b.id]);
      expect(ids(await search('减震')).includes(c.id)).toBe(false);
      expect(ids(await search('麟'))).toEqual(expect.arrayContaining([a.id, b.id, c.id]));
      expect(await search('麒麟 nosuchword')).toEqual([]);
    });

    it('narrows by lone characters beside longer words: sizes like 3.00-10, and a single Chinese character', async () => {
      const small = await add({ nameEn: 'Quillo tyre 3.00-10', nameZh: '奎洛轮胎' });
      const wide = await add({ nameEn: 'Quillo tyre 3.50-10', nameZh: '奎洛轮胎' });
      const ids = (parts: Part[]) => parts.map((p) => p.id);
      expect(ids(await search('quillo tyre 3.00-10'))).toEqual([small.id]);
      expect(ids(await search('quillo 3.50-10'))).toEqual([wide.id]);
      expect(ids(await search('quillo 3'))).toEqual([small.id, wide.id]);
      const rear = await add({ nameZh: '奎洛后刹车片', nameEn: 'Quillo pad' });
      const front = await add({ nameZh: '奎洛前刹车片', nameEn: 'Quillo pad' });
      expect(ids(await search('后 刹车片 奎洛'))).toEqual([rear.id]);
      expect(ids(await search('前 奎洛'))).toEqual([front.id]);
      expect((await list('name=%E5%90%8E%20%E5%A5%8E%E6%B4%9B')).total).toBe(1);
    });

    // PostgreSQL alone walks one token's postings and probes the others; FTS5 intersects them itself.
    if (backend.name === 'postgres')
      it('walks the rarest whole word first on PostgreSQL, whatever its length or its prefixes elsewhere', async () => {
        for (let i = 0; i < 12; i++) await add({ nameEn: `Glimmerwort fitting W8${i}` });
        const rare = await add({ nameEn: 'Glimmerwort fitting W8' });
        const query = await new PartSearchIndex('postgres').rarestFirst(
          h.erp.database.read,
          searchQuery('glimmerwort fitting w8'),
          'P001',
        );
        // "w8" is a whole word of one part, and a prefix of twelve.
        expect(query.whole[0]).toBe('w8');
        expect(query.any.at(-1)).toBe('w8');
        expect((await search('glimmerwort fitting w8'))[0].id).toBe(rare.id);
      });

    it('counts totals exactly up to 1,000 and flags larger ones as capped', { timeout: 120_000 }, async () => {
      const rows = Array.from({ length: 1003 }, (_, i) => i);
      for (let start = 0; start < rows.length; start += 25)
        await Promise.all(
          rows.slice(start, start + 25).map((i) => add({ nameEn: `Capword item${i % 7 === 0 ? ' sevenish' : ''}` })),
        );
      const sevens = rows.filter((i) => i % 7 === 0).length;
      const narrow = await list('name=capword%20sevenish&size=5');
      expect(narrow).toMatchObject({ total: sevens, totalCapped: false });
      const broad = await list('name=capword&size=5&page=3');
      expect(broad).toMatchObject({ total: 1000, totalCapped: true });
      expect(broad.items).toHaveLength(5);
      const category = await list('category=brake_pad&size=1');
      expect(category).toMatchObject({ total: 1000, totalCapped: true });
    });

    it("finds only the caller's project's parts, a project's words and prefixes alike", async () => {
      const p2 = { ...admin, projectId: 'P002' };
      const p2Supplier = (await h.erp.services.suppliers.list(p2))[0].id;
      const elsewhere = await h.erp.services.parts.create(p2, {
        supplierId: p2Supplier,
        code: `T-${backend.name}-p2`,
        model: 'ZORBLAX9',
        category: 'brake_pad',
        nameZh: '异地件',
        nameEn: 'Zorblax gadget',
        spec: '',
        unit: '件',
        unitPrice: 10,
        moq: 1,
      });
      const here = await add({ nameEn: 'Zorblaxine gadget' });
      expect((await search('zorblax')).map((p) => p.id)).toEqual([here.id]);
      expect(await search('zorblax9')).toEqual([]);
      expect(await search('异地件')).toEqual([]);
      const asP2 = async (name: string) => {
        const res = await h.call('GET', `/api/parts/search?name=${encodeURIComponent(name)}`, {
          token: h.tokens.admin,
          headers: { 'x-project-id': 'P002' },
        });
        expect(res.status).toBe(200);
        return (res.body.items as Part[]).map((p) => p.id);
      };
      expect(await asP2('zorblax')).toEqual([elsewhere.id]);
      expect(await asP2('zorb')).toEqual([elsewhere.id]);
      expect(await asP2('异地')).toEqual([elsewhere.id]);
    });

    it('answers search and list pages over HTTP exactly as the catalogue service returns them', async () => {
      const tricky = await add({
        nameEn: 'Quoxel "pro" \\ damper',
        nameZh: '夸克斯减震器',
        spec: 'tab\tline\nend',
        unitPrice: 1234.5678,
      });
      await add({ nameEn: 'Quoxel cheap damper', unitPrice: 0.0001 });
      await add({ nameEn: 'Quoxelite damper', unitPrice: 99_999.9999 });
      const reader: ErpContext = { ...admin, role: 'buyer' };
      const found = await search('quoxel', 20);
      expect(found).toEqual(await h.erp.services.parts.search(reader, 'quoxel', 20));
      expect(found.map((p) => p.unitPrice)).toEqual([1234.5678, 0.0001, 99_999.9999]);
      expect(found[0]).toMatchObject({ id: tricky.id, nameEn: 'Quoxel "pro" \\ damper', categoryName: '刹车片' });
      for (const page of [1, 2])
        expect(await list(`size=2&page=${page}&name=quoxel`)).toEqual(
          await h.erp.services.parts.list(reader, { page, size: 2, name: 'quoxel' }),
        );
      expect(await list('size=3&page=1&category=brake_pad')).toEqual(
        await h.erp.services.parts.list(reader, { page: 1, size: 3, category: 'brake_pad' }),
      );
    });

    it('answers with what the catalogue holds now: a page, its parts and its total follow every write', async () => {
      const first = await add({ nameEn: 'Keepsake rotor' });
      expect((await search('keepsake')).map((p) => p.nameEn)).toEqual(['Keepsake rotor']);
      expect((await list('name=keepsake')).total).toBe(1);
      // Asked again (answers derived from the catalogue may be kept), then the catalogue changes.
      await search('keepsake');
      await h.erp.services.parts.update(admin, first.id, { unitPrice: 12.5, nameEn: 'Keepsake rotor disc' });
      const second = await add({ nameEn: 'Keepsake caliper' });
      expect((await search('keepsake')).map((p) => [p.id, p.unitPrice])).toEqual([
        [first.id, 12.5],
        [second.id, 10],
      ]);
      expect(await list('name=keepsake&size=1')).toMatchObject({ total: 2, totalCapped: false });
    });

    it('sees writes made by another connection to the same database', async () => {
      const part = await add({ nameEn: 'Heirloom bracket' });
      expect((await search('heirloom'))[0]).toMatchObject({ id: part.id, unitPrice: 10 });
      expect((await list('name=heirloom')).total).toBe(1);
      // Another process on the same database (a second ERP, an administrator's script) changes the part.
      const update = 'parts set unit_price_e4 = 770000, name_en = $1 where id = $2';
      if (backend.name === 'sqlite') {
        const other = new Sqlite(h.erp.database.location);
        try {
          other.prepare(`update ${update.replace(/\$\d/g, '?')}`).run('Heirloom bracket v2', part.id);
        } finally {
          other.close();
        }
      } else {
        // A writer whose search_path does not name the ERP's schema.
        const schema = /\(schema (\w+)\)/.exec(h.erp.database.location)?.[1];
        const other = new pg.Client({ connectionString: databaseUrl });
        await other.connect();
        try {
          await other.query(`update ${schema}.${update}`, ['Heirloom bracket v2', part.id]);
        } finally {
          await other.end();
        }
      }
      expect((await search('heirloom'))[0]).toMatchObject({
        id: part.id,
        unitPrice: 77,
        nameEn: 'Heirloom bracket v2',
      });
    });

    it('keeps the index in step with creates and updates, and leaves it alone when an update fails', async () => {
      const part = await add({ nameEn: 'Quuxfoo valve cover', nameZh: '阀门罩' });
      expect((await search('quuxfoo')).map((p) => p.id)).toEqual([part.id]);
      const renamed = await h.erp.services.parts.update(admin, part.id, { nameEn: 'Blibber valve cover' });
      expect(renamed.nameEn).toBe('Blibber valve cover');
      expect(await search('quuxfoo')).toEqual([]);
      expect((await search('blibber')).map((p) => p.id)).toEqual([part.id]);
      const other = await add({ nameEn: 'Another valve' });
      await expect(
        h.erp.services.parts.update(admin, part.id, { code: other.code, nameEn: 'Gone' }),
      ).rejects.toMatchObject({ status: 409 });
      expect((await search('blibber')).map((p) => p.id)).toEqual([part.id]);
      expect(await search('gone')).toEqual([]);
      const buyer = { ...admin, role: 'buyer' as const };
      await expect(h.erp.services.parts.update(buyer, part.id, { nameEn: 'x' })).rejects.toMatchObject({ status: 403 });
    });
  });

  describe.skipIf(!backend.enabled)(`part search after upgrading an existing database (${backend.name})`, () => {
    const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'procura-erp-upgrade-'));
    const schema = `erp_upgrade_${process.pid}_${Math.random().toString(36).slice(2, 8)}`;
    afterAll(async () => {
      fs.rmSync(dataDir, { recursive: true, force: true });
      if (backend.name === 'postgres' && databaseUrl) await dropPostgresSchema(databaseUrl, schema);
    });

    it('indexes the parts that were there before the upgrade', async () => {
      // A database as the first release left it: schema 001, parts and their old token rows.
      // biome-ignore lint/suspicious/noExplicitAny: the old schema predates the typed one
      let old: Kysely<any>;
      if (backend.name === 'sqlite') {
        old = new Kysely({ dialect: new SqliteDialect({ database: new Sqlite(path.join(dataDir, 'erp.sqlite')) }) });
      } else {
        const admin = new pg.Client({ connectionString: databaseUrl });
        await admin.connect();
        await admin.query(`create schema ${schema}`);
        await admin.end();
        const pool = new pg.Pool({ connectionString: databaseUrl, options: `-c search_path=${schema}` });
        old = new Kysely({ dialect: new PostgresDialect({ pool }) });
      }
      await migrateToLatest(old, backend.name, backend.name === 'postgres' ? schema : undefined, '001_initial');
      await old.insertInto('projects').values({ id: 'P001', name_zh: '项目', name_en: 'Project' }).execute();
      const supplier = await old
        .insertInto('suppliers')
        .values({
          project_id: 'P001',
          key: 'acme',
          name_zh: '顶峰',
          name_en: 'Acme',
          contact_name: 'A',
          contact_phone: '1',
          contact_email: 'a@example.com',
          city: '重庆',
          province: '重庆',
          rating: 4,
          lead_time_days: 7,
          payment_terms: 'net 30',
        })
        .returning('id')
        .executeTakeFirstOrThrow();
      const names = [
        ['OLD-1', 'Legacy gasket set', '旧款密封垫'],
        ['OLD-2', 'Gasket', '密封垫'],
        ['GASKET', 'Gasketry kit', '工具'],
      ];
      const ids: number[] = [];
      for (const [code, nameEn, nameZh] of names) {
        const row = await old
          .insertInto('parts')
          .values({
            project_id: 'P001',
            supplier_id: Number(supplier.id),
            code,
            model: code,
            category: 'oil_filter',
            name_zh: nameZh,
            name_en: nameEn,
            spec: '',
            unit: '件',
            unit_price_e4: 10_000,
            moq: 1,
          })
          .returning('id')
          .executeTakeFirstOrThrow();
        ids.push(Number(row.id));
        await old
          .insertInto('part_tokens')
          .values({ token: 'ga', project_id: 'P001', part_id: Number(row.id) })
          .execute();
      }
      await old.destroy();

      const database = await openErpDatabase({
        dataDir,
        databaseUrl: backend.name === 'postgres' ? databaseUrl : undefined,
        schema: backend.name === 'postgres' ? schema : undefined,
      });
      try {
        const parts = createErpServices(database).parts;
        const ctx: ErpContext = { userId: 1, username: 'x', role: 'viewer', projectId: 'P001' };
        const found = (await parts.search(ctx, 'gasket')).map((p) => p.id);
        // Exact code, then whole word "gasket" in part order, then the prefix match "gasketry".
        expect(found).toEqual([ids[2], ids[0], ids[1]]);
        expect((await parts.search(ctx, '密封垫')).map((p) => p.id)).toEqual([ids[0], ids[1]]);
        expect(await parts.list(ctx, { name: 'gasket', page: 1, size: 2 })).toMatchObject({
          total: 3,
          totalCapped: false,
        });
        if (backend.name === 'sqlite')
          expect(
            (
              await sql<{ n: number }>`select count(*) as n from sqlite_master where name = 'part_tokens'`.execute(
                database.db,
              )
            ).rows[0].n,
          ).toBe(0);
      } finally {
        await database.close();
      }
    });
  });
}

describe('SQLite planner statistics after a bulk load', () => {
  const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'procura-erp-stats-'));
  afterAll(() => fs.rmSync(dataDir, { recursive: true, force: true }));

  it('keeps per-index averages and no per-value samples, which re-plan a statement whenever its bindings change', async () => {
    const erp = await createErp({ dataDir });
    try {
      await seedBulkParts(erp.database, 'P001', 300);
      const count = async (table: string) => {
        const exists = await sql<{ n: number }>`select count(*) as n from sqlite_master where name = ${table}`.execute(
          erp.database.db,
        );
        if (!exists.rows[0].n) return 0;
        return (await sql<{ n: number }>`select count(*) as n from ${sql.table(table)}`.execute(erp.database.db))
          .rows[0].n;
      };
      expect(await count('sqlite_stat1')).toBeGreaterThan(0);
      expect(await count('sqlite_stat4')).toBe(0);
      const ctx: ErpContext = { userId: 1, username: 'laoxiao', role: 'buyer', projectId: 'P001' };
      expect((await erp.services.parts.search(ctx, 'spark plug', 5)).length).toBe(5);
    } finally {
      await erp.close();
    }
  });
});
