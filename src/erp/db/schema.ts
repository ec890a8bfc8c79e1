import type { Generated, Insertable, Selectable } from 'kysely';
import type { Role } from '../../protocol/index.ts';
import { ORDER_STATUSES, type OrderStatus, type RfqStatus } from '../contract.ts';

/** The SQL dialects the ERP runs on. */
export type Dialect = 'sqlite' | 'postgres';

/**
 * The part search runs a few small queries per request; through the query builder each cost ~70 µs of CPU
 * before SQLite did any work (~3 µs for a cached better-sqlite3 statement), so the hot path skips it.
 * `arrays` returns each row as its values in column order: better-sqlite3 builds a row object one property
 * at a time, which took about half of fetching a page of parts.
 */
export type ReadQuery = <T>(text: string, params: readonly unknown[], options?: { arrays?: boolean }) => Promise<T[]>;

/** Row shapes of the ERP tables. Timestamps are ISO-8601 UTC text and prices are integers in 1/10000 yuan,
 *  so SQLite and PostgreSQL return identical values. */
export interface ErpTables {
  projects: { id: string; name_zh: string; name_en: string };
  users: {
    id: Generated<number>;
    username: string;
    display_name: string;
    role: Role;
    project_ids: string; // comma-separated, first is the default project
    created_at: string;
    /** When all the user's tokens were last revoked: OAuth access tokens signed until then are refused. */
    tokens_revoked_at: string | null;
  };
  api_tokens: {
    id: Generated<number>;
    user_id: number;
    token_hash: string;
    label: string;
    created_at: string;
    revoked_at: string | null;
  };
  suppliers: {
    id: Generated<number>;
    project_id: string;
    key: string;
    name_zh: string;
    name_en: string;
    contact_name: string;
    contact_phone: string;
    contact_email: string;
    city: string;
    province: string;
    rating: number;
    lead_time_days: number;
    payment_terms: string;
  };
  /** A project's part categories; `parts.category` holds a code of this table. Synonyms are JSON string arrays. */
  categories: {
    project_id: string;
    code: string;
    name_zh: string;
    name_en: string;
    synonyms_zh: string;
    synonyms_en: string;
  };
  parts: {
    id: Generated<number>;
    project_id: string;
    supplier_id: number;
    code: string;
    model: string;
    category: string;
    name_zh: string;
    name_en: string;
    spec: string;
    unit: string;
    unit_price_e4: number;
    moq: number;
  };
  /** PostgreSQL's part search postings (see db/part-search.ts); SQLite keeps an FTS5 table instead. */
  part_tokens: { part_id: number; project_id: string; token: string };
  orders: {
    id: Generated<number>;
    project_id: string;
    order_no: string;
    supplier_id: number;
    status: OrderStatus;
    expected_date: string | null;
    note: string;
    version: number;
    created_by: number;
    /** Who last changed the order's lines, date or note, or submitted it: under the four-eyes rule neither they nor
     *  the creator approve it. */
    last_edited_by: number | null;
    created_at: string;
    updated_at: string;
    /** When the goods arrived (status `received`): on-time delivery is this against `expected_date`. */
    received_at: string | null;
    /** The approval policy's decision on submission: `auto` or `admin`, and why. */
    approval_rule: string | null;
    approval_reason: string | null;
    /** The admin who decided, when, and their comment (null for the policy's own decision). */
    approval_by: string | null;
    approval_at: string | null;
    approval_comment: string | null;
    /** `x-trace-id` of the creating request. */
    trace_id: string | null;
  };
  order_lines: {
    id: Generated<number>;
    order_id: number;
    line_no: number;
    part_id: number;
    quantity: number;
    unit_price_e4: number;
    /** The line's price check (JSON) as computed when the line was written. */
    price_check: string | null;
  };
  inventory: {
    part_id: number;
    project_id: string;
    on_hand: number;
    safety_stock: number;
    reorder_point: number;
    location: string;
    updated_at: string;
  };
  /** Per project: a buyer's approval limit, what always needs an admin, and the price-check thresholds (percent). */
  approval_policies: {
    project_id: string;
    buyer_limit_e4: number;
    admin_suppliers: string; // JSON array of supplier ids
    admin_categories: string; // JSON array of category codes
    info_pct: number;
    warn_pct: number;
    critical_pct: number;
    /** 1: the four-eyes rules apply (the default); 0: switched off by an admin. */
    four_eyes: Generated<number>;
    /** The three-way match's tolerances (contract `InvoiceMatchTolerances`). */
    match_price_pct: Generated<number>;
    match_quantity_pct: Generated<number>;
    duplicate_window_days: Generated<number>;
    version: number;
    updated_by: number | null;
    updated_at: string;
  };
  /** A loosening change of a project's approval policy, waiting for a second admin (one per project). */
  approval_policy_proposals: {
    project_id: string;
    id: string;
    /** JSON: the fields of the update, without its version. */
    changes: string;
    /** JSON array: each control the change loosens, in words. */
    loosens: string;
    base_version: number;
    proposed_by: number;
    proposed_by_name: string;
    proposed_at: string;
  };
  idempotency_keys: {
    user_id: number;
    key: string;
    request_hash: string;
    order_id: number | null;
    /** The RFQ a key's write created or changed (null for order writes). */
    rfq_id: Generated<number | null>;
    /** The goods receipt or supplier invoice a key's write recorded. */
    receipt_id: Generated<number | null>;
    invoice_id: Generated<number | null>;
    created_at: string;
  };
  /** Requests for quotation; prices in 1/10000 of the quote's currency. */
  rfqs: {
    id: Generated<number>;
    project_id: string;
    rfq_no: string;
    title: string;
    status: RfqStatus;
    version: number;
    currency: string;
    incoterm: string;
    reply_deadline: string;
    note: string;
    created_by: number;
    created_at: string;
    updated_at: string;
    trace_id: string | null;
    awarded_supplier_id: number | null;
    awarded_order_id: number | null;
    awarded_by: string | null;
    awarded_at: string | null;
  };
  rfq_lines: {
    id: Generated<number>;
    rfq_id: number;
    line_no: number;
    part_id: number | null;
    item: string;
    quantity: number;
    unit: string;
    required_date: string;
  };
  rfq_invitations: {
    id: Generated<number>;
    rfq_id: number;
    supplier_id: number;
    /** The secret the reply address and the quote form carry: it names the RFQ and the supplier. */
    token: string;
    status: 'invited' | 'replied' | 'declined';
    mail_status: 'none' | 'queued' | 'sent';
    message_id: string | null;
    sent_at: string | null;
    reminded_at: string | null;
    replied_at: string | null;
  };
  rfq_quotes: {
    id: Generated<number>;
    rfq_id: number;
    supplier_id: number;
    line_no: number;
    status: 'quoted' | 'declined' | 'flagged';
    unit_price_e4: number | null;
    currency: string | null;
    price_breaks: string; // JSON [{minQty, unitPrice}]
    moq: number | null;
    lead_time_days: number | null;
    valid_until: string | null;
    freight_e4: number | null;
    remarks: string | null;
    flag: string | null;
    late: number;
    source_kind: 'mail' | 'form' | 'manual';
    source_message_id: string | null;
    source_attachment: string | null;
    source_from: string | null;
    received_at: string;
  };
  /** Every RFQ mail in or out, once per Message-ID, with what became of it. */
  rfq_messages: {
    id: Generated<number>;
    project_id: string;
    rfq_id: number | null;
    supplier_id: number | null;
    direction: 'in' | 'out';
    message_id: string;
    sender: string;
    subject: string;
    outcome: string;
    reason: string | null;
    body: string;
    attachments: string; // JSON [{name, type, size}]
    at: string;
  };
  /** The content of a message's attachment that was read as a quote (or could have been): by its place in the list. */
  rfq_attachments: {
    message_id: string;
    position: number;
    content: Buffer;
  };
  exchange_rates: {
    project_id: string;
    currency: string;
    rate_to_cny: number;
    updated_by: string | null;
    updated_at: string;
  };
  sourcing_settings: {
    project_id: string;
    weights: string; // JSON
    reminder_hours: number;
    version: number;
    updated_by: string | null;
    updated_at: string;
  };
  /** The authorization server's state (oauth/records.ts): one row per record of an oidc-provider model. */
  oauth_records: {
    model: string;
    id: string;
    /** The record as oidc-provider stored it (JSON), but for `consumed`. */
    payload: string;
    grant_id: string | null;
    user_code: string | null;
    uid: string | null;
    /** The user the record belongs to (grants, sessions, codes, tokens, a finished sign-in); null for a client. */
    account_id: string | null;
    /** When the record was used up (epoch seconds, oidc-provider's `consumed`): one update, not a payload rewrite. */
    consumed: number | string | null;
    /** Past this the record is gone (kept until swept); null for one that does not expire, as a registered client. */
    expires_at: string | null;
  };
  /** Goods received against an order, by whom and when; its quantities per order line in `goods_receipt_lines`. */
  goods_receipts: {
    id: Generated<number>;
    project_id: string;
    order_id: number;
    receipt_no: string;
    received_by: number;
    received_at: string;
    recorded_at: string;
    note: string;
    trace_id: string | null;
  };
  goods_receipt_lines: {
    receipt_id: number;
    order_id: number;
    line_no: number;
    part_id: number;
    quantity: number;
  };
  /** Supplier invoices; amounts in minor units of `currency`, `rate_to_cny` as declared when entered. */
  supplier_invoices: {
    id: Generated<number>;
    project_id: string;
    supplier_id: number;
    invoice_no: string;
    /** The number as compared for duplicates: upper case, without spaces and separators. */
    invoice_key: string;
    order_id: number;
    currency: string;
    rate_to_cny: number;
    invoice_date: string;
    total_minor: number | string;
    /** The total printed on the invoice, when it was given: the lines must add up to it. */
    stated_total_minor: number | string | null;
    status: 'matched' | 'held' | 'released';
    /** The last three-way match (contract `InvoiceMatch`, JSON). */
    match_json: string;
    note: string;
    version: number;
    entered_by: number;
    entered_at: string;
    released_by: number | null;
    released_at: string | null;
    trace_id: string | null;
  };
  supplier_invoice_lines: {
    invoice_id: number;
    line_no: number;
    part_id: number;
    order_line_no: number | null;
    quantity: number;
    unit_price_minor: number | string;
  };
  audit_log: {
    id: Generated<number>;
    at: string;
    user_id: number;
    project_id: string;
    entity: string;
    entity_id: string;
    action: string;
    before_json: string | null;
    after_json: string | null;
    trace_id: string | null;
  };
}

export type { Role };
export { ORDER_STATUSES, type OrderStatus };

export type SupplierRow = Selectable<ErpTables['suppliers']>;
export type PartRow = Selectable<ErpTables['parts']>;
export type OrderRow = Selectable<ErpTables['orders']>;
export type NewPart = Insertable<ErpTables['parts']>;
