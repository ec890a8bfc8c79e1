import { z } from 'zod';
import {
  RFQ_STATUS_LABELS,
  RfqDetailViewSchema,
  RfqMessageViewSchema,
  RfqPageSchema,
  RfqProposalViewSchema,
} from '../../protocol/index.ts';
import { ApiRoutes } from '../openapi.ts';
import type { RfqDesk } from './desk.ts';

export interface RfqsAppDeps {
  rfqs: RfqDesk;
}

/** An RFQ by its id or its number (`RFQ-202612-000001`). */
const RfqRef = z.string().regex(/^(\d{1,10}|RFQ-\d{6}-\d{6,})$/i, 'an RFQ id or number (RFQ-202612-000001)');
const Status = z.enum(Object.keys(RFQ_STATUS_LABELS) as [string, ...string[]]);

/**
 * The project's requests for quotation, read as the signed-in user: the list, one RFQ with its quotes (the ERP's CNY
 * figures) and mails, a mail's text, and the ERP's award proposal. The ERP decides what the user sees.
 */
export function rfqsApp(deps: RfqsAppDeps): ApiRoutes {
  const routes = new ApiRoutes();
  const tags = ['rfqs'];
  const missing = { description: '没有这个询价单（或属于其他项目）/ no such RFQ in the user’s project' };

  routes.add(
    {
      method: 'get',
      path: '/rfqs',
      operationId: 'listRfqs',
      summary: '项目的询价单：状态、截止时间、回复数 / the project’s RFQs with status, deadline and replies',
      tags,
      query: z.object({
        status: Status.optional(),
        page: z.coerce.number().int().min(1).max(100_000).default(1),
        size: z.coerce.number().int().min(1).max(100).default(50),
      }),
      responses: { 200: { description: 'a page of RFQs, newest first', json: RfqPageSchema } },
    },
    async (c, { query }) => c.json(await deps.rfqs.list(c.var.user, query.page, query.size, query.status)),
  );
  routes.add(
    {
      method: 'get',
      path: '/rfqs/{rfq}',
      operationId: 'getRfq',
      summary: '询价单：行、受邀供应商、报价（ERP 的人民币折算）、往来邮件 / an RFQ with quotes in CNY and its mails',
      tags,
      params: { rfq: RfqRef },
      responses: { 200: { description: 'the RFQ', json: RfqDetailViewSchema }, 404: missing },
    },
    async (c, { params }) => c.json(await deps.rfqs.detail(c.var.user, params.rfq)),
  );
  routes.add(
    {
      method: 'get',
      path: '/rfqs/{rfq}/proposal',
      operationId: 'getRfqProposal',
      summary: '授标建议：排名及理由、被排除的报价及原因 / the award proposal: ranking with reasons, exclusions',
      tags,
      params: { rfq: RfqRef },
      responses: { 200: { description: 'the ERP’s proposal', json: RfqProposalViewSchema }, 404: missing },
    },
    async (c, { params }) => c.json(await deps.rfqs.proposal(c.var.user, params.rfq)),
  );
  routes.add(
    {
      method: 'get',
      path: '/rfqs/{rfq}/messages/{message}',
      operationId: 'getRfqMessage',
      summary: '询价单的一封邮件（报价来源）/ one mail of an RFQ, a quote’s source',
      tags,
      params: { rfq: RfqRef, message: z.coerce.number().int().positive().max(2_147_483_647) },
      responses: { 200: { description: 'the mail with its text', json: RfqMessageViewSchema }, 404: missing },
    },
    async (c, { params }) => c.json(await deps.rfqs.message(c.var.user, params.rfq, params.message)),
  );
  routes.add(
    {
      method: 'get',
      path: '/rfqs/{rfq}/messages/{message}/attachments/{position}',
      operationId: 'getRfqAttachment',
      summary: '询价邮件的附件下载（报价来源文件）/ download a kept attachment of an RFQ mail, a quote’s source file',
      tags,
      params: {
        rfq: RfqRef,
        message: z.coerce.number().int().positive().max(2_147_483_647),
        position: z.coerce.number().int().min(0).max(100),
      },
      responses: {
        200: { description: 'the file as it came', file: ['application/octet-stream'] },
        404: { description: '没有这个附件 / no such kept attachment in the user’s project' },
      },
    },
    async (c, { params }) => deps.rfqs.attachment(c.var.user, params.rfq, params.message, params.position),
  );
  return routes;
}
