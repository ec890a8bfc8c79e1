import {
  type ColumnDefinitionBuilder,
  type Kysely,
  type Migration,
  type MigrationProvider,
  Migrator,
  sql,
} from 'kysely';
import { PART_CATEGORIES } from '../demo/catalogue.ts';
import { receiveHistory } from '../services/receipts.ts';
import { PartSearchIndex } from './part-search.ts';
import type { Dialect } from './schema.ts';

// biome-ignore lint/suspicious/noExplicitAny: migrations work below the typed schema
type Db = Kysely<any>;

/** Schema history of the ERP. Append new migrations; never edit a released one. */
function migrations(dialect: Dialect): Record<string, Migration> {
  const idType = dialect === 'postgres' ? 'serial' : 'integer';
  return {
    '001_initial': {
      async up(db: Db) {
        await db.schema
          .createTable('projects')
          .addColumn('id', 'text', (c) => c.primaryKey())
          .addColumn('name_zh', 'text', (c) => c.notNull())
          .addColumn('name_en', 'text', (c) => c.notNull())
          .execute();
        await db.schema
          .createTable('users')
          .addColumn('id', idType, (c) => (dialect === 'sqlite' ? c.primaryKey().autoIncrement() : c.primaryKey()))
          .addColumn('username', 'text', (c) => c.notNull().unique())
          .addColumn('display_name', 'text', (c) => c.notNull())
          .addColumn('role', 'text', (c) => c.notNull().check(sql`role in ('admin', 'buyer', 'viewer')`))
          .addColumn('project_ids', 'text', (c) => c.notNull())
          .addColumn('created_at', 'text', (c) => c.notNull())
          .execute();
        await db.schema
          .createTable('api_tokens')
          .addColumn('id', idType, (c) => (dialect === 'sqlite' ? c.primaryKey().autoIncrement() : c.primaryKey()))
          .addColumn('user_id', 'integer', (c) => c.notNull().references('users.id'))
          .addColumn('token_hash', 'text', (c) => c.notNull().unique())
          .addColumn('label', 'text', (c) => c.notNull())
          .addColumn('created_at', 'text', (c) => c.notNull())
          .addColumn('revoked_at', 'text')
          .execute();
        await db.schema
          .createTable('suppliers')
          .addColumn('id', idType, (c) => (dialect === 'sqlite' ? c.primaryKey().autoIncrement() : c.primaryKey()))
          .addColumn('project_id', 'text', (c) => c.notNull().references('projects.id'))
          .addColumn('key', 'text', (c) => c.notNull())
          .addColumn('name_zh', 'text', (c) => c.notNull())
          .addColumn('name_en', 'text', (c) => c.notNull())
          .addColumn('contact_name', 'text', (c) => c.notNull())
          .addColumn('contact_phone', 'text', (c) => c.notNull())
          .addColumn('contact_email', 'text', (c) => c.notNull())
          .addColumn('city', 'text', (c) => c.notNull())
          .addColumn('province', 'text', (c) => c.notNull())
          .addColumn('rating', 'real', (c) => c.notNull())
          .addColumn('lead_time_days', 'integer', (c) => c.notNull())
          .addColumn('payment_terms', 'text', (c) => c.notNull())
          .addUniqueConstraint('suppliers_project_key', ['project_id', 'key'])
          .execute();
        await db.schema
          .createTable('parts')
          .addColumn('id', idType, (c) => (dialect === 'sqlite' ? c.primaryKey().autoIncrement() : c.primaryKey()))
          .addColumn('project_id', 'text', (c) => c.notNull().references('projects.id'))
          .addColumn('supplier_id', 'integer', (c) => c.notNull().references('suppliers.id'))
          .addColumn('code', 'text', (c) => c.notNull())
          .addColumn('model', 'text', (c) => c.notNull())
          .addColumn('category', 'text', (c) => c.notNull())
          .addColumn('name_zh', 'text', (c) => c.notNull())
          .addColumn('name_en', 'text', (c) => c.notNull())
          .addColumn('spec', 'text', (c) => c.notNull())
          .addColumn('unit', 'text', (c) => c.notNull())
          .addColumn('unit_price_e4', 'integer', (c) => c.notNull().check(sql`unit_price_e4 >= 0`))
          .addColumn('moq', 'integer', (c) => c.notNull().check(sql`moq >= 1`))
          .addUniqueConstraint('parts_project_code', ['project_id', 'code'])
          .execute();
        await db.schema.createIndex('parts_supplier').on('parts').columns(['supplier_id', 'id']).execute();
        await db.schema.createIndex('parts_category').on('parts').columns(['project_id', 'category', 'id']).execute();
        // Clustered on (token, project, part) in SQLite: one B-tree per lookup and per insert.
        const tokens = db.schema
          .createTable('part_tokens')
          .addColumn('token', 'text', (c) => c.notNull())
          .addColumn('project_id', 'text', (c) => c.notNull())
          .addColumn('part_id', 'integer', (c) => c.notNull().references('parts.id'))
          .addPrimaryKeyConstraint('part_tokens_pk', ['token', 'project_id', 'part_id']);
        await (dialect === 'sqlite' ? tokens.modifyEnd(sql`without rowid`) : tokens).execute();
        await db.schema
          .createTable('orders')
          .addColumn('id', idType, (c) => (dialect === 'sqlite' ? c.primaryKey().autoIncrement() : c.primaryKey()))
          .addColumn('project_id', 'text', (c) => c.notNull().references('projects.id'))
          .addColumn('order_no', 'text', (c) => c.notNull().unique())
          .addColumn('supplier_id', 'integer', (c) => c.notNull().references('suppliers.id'))
          .addColumn('status', 'text', (c) => c.notNull())
          .addColumn('expected_date', 'text')
          .addColumn('note', 'text', (c) => c.notNull())
          .addColumn('version', 'integer', (c) => c.notNull())
          .addColumn('created_by', 'integer', (c) => c.notNull().references('users.id'))
          .addColumn('created_at', 'text', (c) => c.notNull())
          .addColumn('updated_at', 'text', (c) => c.notNull())
          .execute();
        await db.schema
          .createIndex('orders_project_created')
          .on('orders')
          .columns(['project_id', 'created_at'])
          .execute();
        await db.schema
          .createTable('order_lines')
          .addColumn('id', idType, (c) => (dialect === 'sqlite' ? c.primaryKey().autoIncrement() : c.primaryKey()))
          .addColumn('order_id', 'integer', (c) => c.notNull().references('orders.id'))
          .addColumn('line_no', 'integer', (c) => c.notNull())
          .addColumn('part_id', 'integer', (c) => c.notNull().references('parts.id'))
          .addColumn('quantity', 'integer', (c) => c.notNull().check(sql`quantity > 0`))
          .addColumn('unit_price_e4', 'integer', (c) => c.notNull())
          .execute();
        await db.schema.createIndex('order_lines_order').on('order_lines').column('order_id').execute();
        await db.schema.createIndex('order_lines_part').on('order_lines').column('part_id').execute();
        await db.schema
          .createTable('inventory')
          .addColumn('part_id', 'integer', (c) => c.primaryKey().references('parts.id'))
          .addColumn('project_id', 'text', (c) => c.notNull())
          .addColumn('on_hand', 'integer', (c) => c.notNull())
          .addColumn('safety_stock', 'integer', (c) => c.notNull())
          .addColumn('reorder_point', 'integer', (c) => c.notNull())
          .addColumn('location', 'text', (c) => c.notNull())
          .addColumn('updated_at', 'text', (c) => c.notNull())
          .execute();
        await db.schema.createIndex('inventory_project').on('inventory').column('project_id').execute();
        await db.schema
          .createTable('idempotency_keys')
          .addColumn('user_id', 'integer', (c) => c.notNull())
          .addColumn('key', 'text', (c) => c.notNull())
          .addColumn('request_hash', 'text', (c) => c.notNull())
          .addColumn('order_id', 'integer')
          .addColumn('created_at', 'text', (c) => c.notNull())
          .addPrimaryKeyConstraint('idempotency_keys_pk', ['user_id', 'key'])
          .execute();
        await db.schema
          .createTable('audit_log')
          .addColumn('id', idType, (c) => (dialect === 'sqlite' ? c.primaryKey().autoIncrement() : c.primaryKey()))
          .addColumn('at', 'text', (c) => c.notNull())
          .addColumn('user_id', 'integer', (c) => c.notNull())
          .addColumn('project_id', 'text', (c) => c.notNull())
          .addColumn('entity', 'text', (c) => c.notNull())
          .addColumn('entity_id', 'text', (c) => c.notNull())
          .addColumn('action', 'text', (c) => c.notNull())
          .addColumn('before_json', 'text')
          .addColumn('after_json', 'text')
          .addColumn('trace_id', 'text')
          .execute();
        await db.schema.createIndex('audit_log_entity').on('audit_log').columns(['entity', 'entity_id']).execute();
      },
    },
    '002_ranked_part_search': {
      // Part-order and exact code/model lookups for the relevance tiers, and the search index of part-search.ts:
      // SQLite moves to FTS5 (the token table goes), PostgreSQL re-tokenises its token table with whole-word
      // postings. Existing parts are indexed here, so an upgraded data dir searches like a new one.
      async up(db: Db) {
        // (project, id): a project's parts in part order, so an unfiltered page stops after its rows.
        await db.schema.createIndex('parts_project').on('parts').columns(['project_id', 'id']).execute();
        await sql`create index parts_code_lower on parts (project_id, lower(code))`.execute(db);
        await sql`create index parts_model_lower on parts (project_id, lower(model))`.execute(db);
        if (dialect === 'postgres') {
          // A part's postings are rewritten when it changes: find them without walking every token.
          await db.schema.createIndex('part_tokens_part').on('part_tokens').column('part_id').execute();
          // Postings are derived rows written in their part's own transaction; the per-row foreign-key
          // check was most of a bulk load's time.
          await sql`alter table part_tokens drop constraint if exists part_tokens_part_id_fkey`.execute(db);
        } else {
          await db.schema.dropTable('part_tokens').execute();
          // Contentless: the text lives in `parts`; `detail=column` keeps the column a token was found in
          // (whole word, prefix or project) and drops positions no tier needs.
          await sql`create virtual table part_search using fts5(words, prefixes, project, content='', contentless_delete=1, detail=column, tokenize='unicode61 remove_diacritics 0')`.execute(
            db,
          );
        }
        // Category words join the index with 010_categories, which rebuilds it again.
        await new PartSearchIndex(dialect).rebuild(db, { withCategories: false });
      },
    },
    '003_price_checks_and_approval_policy': {
      async up(db: Db) {
        await db.schema.alterTable('orders').addColumn('received_at', 'text').execute();
        await db.schema.alterTable('orders').addColumn('approval_rule', 'text').execute();
        await db.schema.alterTable('orders').addColumn('approval_reason', 'text').execute();
        await db.schema.alterTable('order_lines').addColumn('price_check', 'text').execute();
        await db.schema
          .createTable('approval_policies')
          .addColumn('project_id', 'text', (c) => c.primaryKey().references('projects.id'))
          .addColumn('buyer_limit_e4', 'bigint', (c) => c.notNull())
          .addColumn('admin_suppliers', 'text', (c) => c.notNull())
          .addColumn('admin_categories', 'text', (c) => c.notNull())
          .addColumn('info_pct', 'real', (c) => c.notNull())
          .addColumn('warn_pct', 'real', (c) => c.notNull())
          .addColumn('critical_pct', 'real', (c) => c.notNull())
          .addColumn('version', 'integer', (c) => c.notNull())
          .addColumn('updated_by', 'integer')
          .addColumn('updated_at', 'text', (c) => c.notNull())
          .execute();
      },
    },
    '004_order_origin_and_decider': {
      // Who decided an order, when and why, as fields a buyer can read; and the trace of the request that created
      // it, so the conversation that drafted it can be told the outcome.
      async up(db: Db) {
        for (const column of ['approval_by', 'approval_at', 'approval_comment', 'trace_id'])
          await db.schema.alterTable('orders').addColumn(column, 'text').execute();
        await db.schema.createIndex('orders_trace').on('orders').columns(['project_id', 'trace_id']).execute();
      },
    },
    '005_project_scoped_search_tokens': {
      // SQLite: each search token carries its project instead of a project column ANDed into every query
      // (part-search.ts), and planner statistics lose the per-value samples that re-planned hot statements.
      async up(db: Db) {
        if (dialect !== 'sqlite') return;
        await sql`drop table part_search`.execute(db);
        await sql`create virtual table part_search using fts5(words, prefixes, content='', contentless_delete=1, detail=column, tokenize='unicode61 remove_diacritics 0')`.execute(
          db,
        );
        await new PartSearchIndex(dialect).rebuild(db, { withCategories: false });
      },
    },
    '006_catalog_version': {
      // A counter every write to parts or suppliers moves, from any connection or process, so what lists and
      // searches derive from the catalogue can be kept between requests and dropped the moment it changes
      // (services/catalog-cache.ts).
      async up(db: Db) {
        await sql`create table catalog_version (id integer primary key check (id = 1), version bigint not null)`.execute(
          db,
        );
        await sql`insert into catalog_version (id, version) values (1, 0)`.execute(db);
        if (dialect === 'sqlite') {
          for (const table of ['parts', 'suppliers'])
            for (const event of ['insert', 'update', 'delete'])
              await sql
                .raw(
                  `create trigger ${table}_${event}_catalog_version after ${event} on ${table}
                   begin update catalog_version set version = version + 1; end`,
                )
                .execute(db);
          return;
        }
        // Once per statement; the table is named with the trigger's own schema, whatever the writer's search_path.
        await sql
          .raw(
            `create function bump_catalog_version() returns trigger language plpgsql as $$
             begin
               execute format('update %I.catalog_version set version = version + 1', tg_table_schema);
               return null;
             end $$`,
          )
          .execute(db);
        for (const table of ['parts', 'suppliers'])
          await sql
            .raw(
              `create trigger ${table}_catalog_version after insert or update or delete on ${table}
               for each statement execute function bump_catalog_version()`,
            )
            .execute(db);
      },
    },
    '008_four_eyes': {
      // Segregation of duties: who last changed an order's content (its creator until someone else edits it), and
      // the project's switch for the four-eyes rules (on unless an admin turns it off).
      async up(db: Db) {
        await db.schema.alterTable('orders').addColumn('last_edited_by', 'integer').execute();
        await sql`update orders set last_edited_by = created_by`.execute(db);
        await db.schema
          .alterTable('approval_policies')
          .addColumn('four_eyes', 'integer', (c) => c.notNull().defaultTo(1))
          .execute();
      },
    },
    '009_rfqs': {
      // Requests for quotation: lines, invited suppliers (each with the token its reply address and quote form carry),
      // quotes per supplier and line, every mail in or out (a message is handled once, by its Message-ID), the
      // project's exchange rates and sourcing settings; an idempotency key may now stand for an RFQ write.
      async up(db: Db) {
        const id = (c: ColumnDefinitionBuilder) =>
          dialect === 'sqlite' ? c.primaryKey().autoIncrement() : c.primaryKey();
        await db.schema
          .createTable('rfqs')
          .addColumn('id', idType, id)
          .addColumn('project_id', 'text', (c) => c.notNull().references('projects.id'))
          .addColumn('rfq_no', 'text', (c) => c.notNull().unique())
          .addColumn('title', 'text', (c) => c.notNull())
          .addColumn('status', 'text', (c) => c.notNull())
          .addColumn('version', 'integer', (c) => c.notNull())
          .addColumn('currency', 'text', (c) => c.notNull())
          .addColumn('incoterm', 'text', (c) => c.notNull())
          .addColumn('reply_deadline', 'text', (c) => c.notNull())
          .addColumn('note', 'text', (c) => c.notNull())
          .addColumn('created_by', 'integer', (c) => c.notNull().references('users.id'))
          .addColumn('created_at', 'text', (c) => c.notNull())
          .addColumn('updated_at', 'text', (c) => c.notNull())
          .addColumn('trace_id', 'text')
          .addColumn('awarded_supplier_id', 'integer')
          .addColumn('awarded_order_id', 'integer')
          .addColumn('awarded_by', 'text')
          .addColumn('awarded_at', 'text')
          .execute();
        await db.schema.createIndex('rfqs_project_created').on('rfqs').columns(['project_id', 'created_at']).execute();
        await db.schema
          .createTable('rfq_lines')
          .addColumn('id', idType, id)
          .addColumn('rfq_id', 'integer', (c) => c.notNull().references('rfqs.id'))
          .addColumn('line_no', 'integer', (c) => c.notNull())
          .addColumn('part_id', 'integer', (c) => c.references('parts.id'))
          .addColumn('item', 'text', (c) => c.notNull())
          .addColumn('quantity', 'integer', (c) => c.notNull().check(sql`quantity > 0`))
          .addColumn('unit', 'text', (c) => c.notNull())
          .addColumn('required_date', 'text', (c) => c.notNull())
          .addUniqueConstraint('rfq_lines_no', ['rfq_id', 'line_no'])
          .execute();
        await db.schema
          .createTable('rfq_invitations')
          .addColumn('id', idType, id)
          .addColumn('rfq_id', 'integer', (c) => c.notNull().references('rfqs.id'))
          .addColumn('supplier_id', 'integer', (c) => c.notNull().references('suppliers.id'))
          .addColumn('token', 'text', (c) => c.notNull().unique())
          .addColumn('status', 'text', (c) => c.notNull())
          .addColumn('mail_status', 'text', (c) => c.notNull())
          .addColumn('message_id', 'text')
          .addColumn('sent_at', 'text')
          .addColumn('reminded_at', 'text')
          .addColumn('replied_at', 'text')
          .addUniqueConstraint('rfq_invitations_supplier', ['rfq_id', 'supplier_id'])
          .execute();
        await db.schema.createIndex('rfq_invitations_mail').on('rfq_invitations').column('mail_status').execute();
        await db.schema
          .createTable('rfq_quotes')
          .addColumn('id', idType, id)
          .addColumn('rfq_id', 'integer', (c) => c.notNull().references('rfqs.id'))
          .addColumn('supplier_id', 'integer', (c) => c.notNull().references('suppliers.id'))
          .addColumn('line_no', 'integer', (c) => c.notNull())
          .addColumn('status', 'text', (c) => c.notNull())
          .addColumn('unit_price_e4', 'bigint')
          .addColumn('currency', 'text')
          .addColumn('price_breaks', 'text', (c) => c.notNull())
          .addColumn('moq', 'integer')
          .addColumn('lead_time_days', 'integer')
          .addColumn('valid_until', 'text')
          .addColumn('freight_e4', 'bigint')
          .addColumn('remarks', 'text')
          .addColumn('flag', 'text')
          .addColumn('late', 'integer', (c) => c.notNull())
          .addColumn('source_kind', 'text', (c) => c.notNull())
          .addColumn('source_message_id', 'text')
          .addColumn('source_attachment', 'text')
          .addColumn('source_from', 'text')
          .addColumn('received_at', 'text', (c) => c.notNull())
          .addUniqueConstraint('rfq_quotes_line', ['rfq_id', 'supplier_id', 'line_no'])
          .execute();
        await db.schema
          .createTable('rfq_messages')
          .addColumn('id', idType, id)
          .addColumn('project_id', 'text', (c) => c.notNull())
          .addColumn('rfq_id', 'integer')
          .addColumn('supplier_id', 'integer')
          .addColumn('direction', 'text', (c) => c.notNull())
          .addColumn('message_id', 'text', (c) => c.notNull().unique())
          .addColumn('sender', 'text', (c) => c.notNull())
          .addColumn('subject', 'text', (c) => c.notNull())
          .addColumn('outcome', 'text', (c) => c.notNull())
          .addColumn('reason', 'text')
          .addColumn('body', 'text', (c) => c.notNull())
          .addColumn('attachments', 'text', (c) => c.notNull())
          .addColumn('at', 'text', (c) => c.notNull())
          .execute();
        await db.schema.createIndex('rfq_messages_rfq').on('rfq_messages').columns(['rfq_id', 'id']).execute();
        await db.schema
          .createTable('exchange_rates')
          .addColumn('project_id', 'text', (c) => c.notNull().references('projects.id'))
          .addColumn('currency', 'text', (c) => c.notNull())
          .addColumn('rate_to_cny', 'real', (c) => c.notNull())
          .addColumn('updated_by', 'text')
          .addColumn('updated_at', 'text', (c) => c.notNull())
          .addPrimaryKeyConstraint('exchange_rates_pk', ['project_id', 'currency'])
          .execute();
        await db.schema
          .createTable('sourcing_settings')
          .addColumn('project_id', 'text', (c) => c.primaryKey().references('projects.id'))
          .addColumn('weights', 'text', (c) => c.notNull())
          .addColumn('reminder_hours', 'integer', (c) => c.notNull())
          .addColumn('version', 'integer', (c) => c.notNull())
          .addColumn('updated_by', 'text')
          .addColumn('updated_at', 'text', (c) => c.notNull())
          .execute();
        await db.schema.alterTable('idempotency_keys').addColumn('rfq_id', 'integer').execute();
      },
    },
    '010_categories': {
      async up(db: Db) {
        await db.schema
          .createTable('categories')
          .addColumn('project_id', 'text', (c) => c.notNull().references('projects.id'))
          .addColumn('code', 'text', (c) => c.notNull())
          .addColumn('name_zh', 'text', (c) => c.notNull())
          .addColumn('name_en', 'text', (c) => c.notNull())
          .addColumn('synonyms_zh', 'text', (c) => c.notNull().defaultTo('[]'))
          .addColumn('synonyms_en', 'text', (c) => c.notNull().defaultTo('[]'))
          .addPrimaryKeyConstraint('categories_pk', ['project_id', 'code'])
          .execute();
        // A data dir from before this table: every category its parts use gets a row, named as the demo catalogue
        // the ERP was seeded from names it (the code itself when unknown), then the index learns the synonyms.
        const used = await db.selectFrom('parts').select(['project_id', 'category']).distinct().execute();
        const known = new Map(PART_CATEGORIES.map((c) => [c.code, c]));
        for (const row of used as Array<{ project_id: string; category: string }>) {
          const info = known.get(row.category);
          await db
            .insertInto('categories')
            .values({
              project_id: row.project_id,
              code: row.category,
              name_zh: info?.nameZh ?? row.category,
              name_en: info?.nameEn ?? row.category,
              synonyms_zh: JSON.stringify(info?.synonymsZh ?? []),
              synonyms_en: JSON.stringify(info?.synonymsEn ?? []),
            })
            .execute();
        }
        if (used.length) await new PartSearchIndex(dialect).rebuild(db);
      },
    },
    '011_rfq_attachments': {
      async up(db: Db) {
        // The attachments a reply's figures are read from, kept so the buyer can open the source itself.
        await db.schema
          .createTable('rfq_attachments')
          .addColumn('message_id', 'text', (c) => c.notNull())
          .addColumn('position', 'integer', (c) => c.notNull())
          .addColumn('content', dialect === 'postgres' ? 'bytea' : 'blob', (c) => c.notNull())
          .addPrimaryKeyConstraint('rfq_attachments_pk', ['message_id', 'position'])
          .execute();
      },
    },
    '012_oauth_records': {
      // What the MCP sign-in's authorization server keeps (oauth/records.ts): registered clients, grants, sessions,
      // codes and tokens, so they outlive a restart and every process on this database sees the same ones.
      async up(db: Db) {
        await db.schema
          .createTable('oauth_records')
          .addColumn('model', 'text', (c) => c.notNull())
          .addColumn('id', 'text', (c) => c.notNull())
          .addColumn('payload', 'text', (c) => c.notNull())
          .addColumn('grant_id', 'text')
          .addColumn('user_code', 'text')
          .addColumn('uid', 'text')
          .addColumn('consumed', 'bigint')
          .addColumn('expires_at', 'text')
          .addPrimaryKeyConstraint('oauth_records_pk', ['model', 'id'])
          .execute();
        for (const column of ['grant_id', 'user_code', 'uid', 'expires_at'])
          await db.schema.createIndex(`oauth_records_${column}`).on('oauth_records').column(column).execute();
      },
    },
    '013_user_revocation': {
      // Revoking a user ends their OAuth sign-ins too: the records of their account are found by a column of their
      // own (those kept before it are read from the payload once, here), and the access tokens signed before the
      // revocation, which live on as JWTs, are refused from the moment it was made.
      async up(db: Db) {
        await db.schema.alterTable('users').addColumn('tokens_revoked_at', 'text').execute();
        await db.schema.alterTable('oauth_records').addColumn('account_id', 'text').execute();
        const accountOf =
          dialect === 'postgres'
            ? sql`coalesce(payload::json->>'accountId', payload::json#>>'{result,login,accountId}', payload::json#>>'{session,accountId}')`
            : sql`coalesce(json_extract(payload, '$.accountId'), json_extract(payload, '$.result.login.accountId'), json_extract(payload, '$.session.accountId'))`;
        await db.updateTable('oauth_records').set({ account_id: accountOf }).execute();
        await db.schema.createIndex('oauth_records_account_id').on('oauth_records').column('account_id').execute();
      },
    },
    '014_approval_policy_proposals': {
      // Four eyes on the policy itself: a change that loosens a control waits here for a second admin.
      async up(db: Db) {
        await db.schema
          .createTable('approval_policy_proposals')
          .addColumn('project_id', 'text', (c) => c.primaryKey())
          .addColumn('id', 'text', (c) => c.notNull())
          .addColumn('changes', 'text', (c) => c.notNull())
          .addColumn('loosens', 'text', (c) => c.notNull())
          .addColumn('base_version', 'integer', (c) => c.notNull())
          .addColumn('proposed_by', 'integer', (c) => c.notNull())
          .addColumn('proposed_by_name', 'text', (c) => c.notNull())
          .addColumn('proposed_at', 'text', (c) => c.notNull())
          .execute();
      },
    },
    '015_procure_to_pay': {
      // Goods receipts per order line, supplier invoices with their lines and last three-way match, the match's
      // tolerances in the approval policy, and idempotency keys that may stand for a receipt or an invoice.
      async up(db: Db) {
        const id = (c: ColumnDefinitionBuilder) =>
          dialect === 'sqlite' ? c.primaryKey().autoIncrement() : c.primaryKey();
        await db.schema
          .createTable('goods_receipts')
          .addColumn('id', idType, id)
          .addColumn('project_id', 'text', (c) => c.notNull().references('projects.id'))
          .addColumn('order_id', 'integer', (c) => c.notNull().references('orders.id'))
          .addColumn('receipt_no', 'text', (c) => c.notNull())
          .addColumn('received_by', 'integer', (c) => c.notNull().references('users.id'))
          .addColumn('received_at', 'text', (c) => c.notNull())
          .addColumn('recorded_at', 'text', (c) => c.notNull())
          .addColumn('note', 'text', (c) => c.notNull())
          .addColumn('trace_id', 'text')
          .addUniqueConstraint('goods_receipts_no', ['project_id', 'receipt_no'])
          .execute();
        await db.schema.createIndex('goods_receipts_order').on('goods_receipts').column('order_id').execute();
        await db.schema
          .createTable('goods_receipt_lines')
          .addColumn('receipt_id', 'integer', (c) => c.notNull().references('goods_receipts.id'))
          .addColumn('order_id', 'integer', (c) => c.notNull())
          .addColumn('line_no', 'integer', (c) => c.notNull())
          .addColumn('part_id', 'integer', (c) => c.notNull())
          .addColumn('quantity', 'integer', (c) => c.notNull().check(sql`quantity > 0`))
          .addPrimaryKeyConstraint('goods_receipt_lines_pk', ['receipt_id', 'line_no'])
          .execute();
        await db.schema
          .createIndex('goods_receipt_lines_order')
          .on('goods_receipt_lines')
          .columns(['order_id', 'line_no'])
          .execute();
        await db.schema
          .createTable('supplier_invoices')
          .addColumn('id', idType, id)
          .addColumn('project_id', 'text', (c) => c.notNull().references('projects.id'))
          .addColumn('supplier_id', 'integer', (c) => c.notNull().references('suppliers.id'))
          .addColumn('invoice_no', 'text', (c) => c.notNull())
          .addColumn('invoice_key', 'text', (c) => c.notNull())
          .addColumn('order_id', 'integer', (c) => c.notNull().references('orders.id'))
          .addColumn('currency', 'text', (c) => c.notNull())
          .addColumn('rate_to_cny', 'real', (c) => c.notNull())
          .addColumn('invoice_date', 'text', (c) => c.notNull())
          .addColumn('total_minor', 'bigint', (c) => c.notNull())
          .addColumn('stated_total_minor', 'bigint')
          .addColumn('status', 'text', (c) => c.notNull())
          .addColumn('match_json', 'text', (c) => c.notNull())
          .addColumn('note', 'text', (c) => c.notNull())
          .addColumn('version', 'integer', (c) => c.notNull())
          .addColumn('entered_by', 'integer', (c) => c.notNull().references('users.id'))
          .addColumn('entered_at', 'text', (c) => c.notNull())
          .addColumn('released_by', 'integer')
          .addColumn('released_at', 'text')
          .addColumn('trace_id', 'text')
          // One invoice number per supplier: the same invoice entered twice is refused by the database itself.
          .addUniqueConstraint('supplier_invoices_no', ['project_id', 'supplier_id', 'invoice_key'])
          .execute();
        await db.schema.createIndex('supplier_invoices_order').on('supplier_invoices').column('order_id').execute();
        await db.schema
          .createTable('supplier_invoice_lines')
          .addColumn('invoice_id', 'integer', (c) => c.notNull().references('supplier_invoices.id'))
          .addColumn('line_no', 'integer', (c) => c.notNull())
          .addColumn('part_id', 'integer', (c) => c.notNull())
          .addColumn('order_line_no', 'integer')
          .addColumn('quantity', 'integer', (c) => c.notNull().check(sql`quantity > 0`))
          .addColumn('unit_price_minor', 'bigint', (c) => c.notNull())
          .addPrimaryKeyConstraint('supplier_invoice_lines_pk', ['invoice_id', 'line_no'])
          .execute();
        for (const [column, type, value] of [
          ['match_price_pct', 'real', 2],
          ['match_quantity_pct', 'real', 0],
          ['duplicate_window_days', 'integer', 30],
        ] as const)
          await db.schema
            .alterTable('approval_policies')
            .addColumn(column, type, (c) => c.notNull().defaultTo(value))
            .execute();
        for (const column of ['receipt_id', 'invoice_id'])
          await db.schema.alterTable('idempotency_keys').addColumn(column, 'integer').execute();
        // Orders received before receipts existed get theirs, so received quantities are always the receipts' sum.
        await receiveHistory(db);
      },
    },
  };
}

/** Brings the schema to the latest migration (or to `target`, for upgrade tests); fails loudly with the
 *  migration's name. */
export async function migrateToLatest(db: Db, dialect: Dialect, schema?: string, target?: string): Promise<void> {
  const provider: MigrationProvider = { getMigrations: async () => migrations(dialect) };
  const migrator = new Migrator({
    db,
    provider,
    migrationTableName: 'erp_migrations',
    // Named explicitly: otherwise another schema's migration table in the same database counts as ours.
    migrationTableSchema: dialect === 'postgres' ? (schema ?? 'public') : undefined,
    migrationLockTableName: 'erp_migrations_lock',
  });
  const { error, results } = await (target ? migrator.migrateTo(target) : migrator.migrateToLatest());
  const failed = results?.find((r) => r.status === 'Error');
  if (error)
    throw new Error(`ERP migration ${failed?.migrationName ?? ''} failed: ${(error as Error).message ?? error}`);
}
