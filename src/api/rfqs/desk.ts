import {
  isReadOnly,
  type RfqDetailView,
  type RfqMessageView,
  type RfqPage,
  type RfqProposalView,
} from '../../protocol/index.ts';
import { notFound, ProblemError } from '../../shared/index.ts';
import type { ApiUser } from '../auth.ts';
import { erpAsUser } from '../erp-call.ts';

/** An RFQ number as the ERP writes it. */
export const RFQ_NUMBER = /^RFQ-\d{6}-\d{6,}$/i;
/** An RFQ named by number is looked for over at most this many pages of the ERP's list (100 a page). */
const NUMBER_SEARCH_PAGES = 20;

/**
 * Requests for quotation for the browser and the terminal: the ERP's answers as the signed-in user (so the ERP's
 * projects and roles decide what they see: another project's RFQ is a 404), with the mails each quote came from.
 * Nothing here writes: an award is asked of the sourcing agent, whose write waits for the person's approval.
 */
export class RfqDesk {
  constructor(private readonly erpUrl: string) {}

  list(user: ApiUser, page: number, size: number, status?: string): Promise<RfqPage> {
    return this.erp(user, '/rfqs', { query: { page, size, ...(status && { status }) } });
  }

  async detail(user: ApiUser, ref: string): Promise<RfqDetailView> {
    const id = await this.idOf(user, ref);
    const [rfq, messages] = await Promise.all([
      this.erp<Omit<RfqDetailView, 'messages' | 'permissions'>>(user, `/rfqs/${id}`),
      this.erp<{ items: RfqMessageView[] }>(user, `/rfqs/${id}/messages`),
    ]);
    return {
      ...rfq,
      messages: messages.items.map(({ body: _body, ...summary }) => summary),
      permissions: awardPermission(user, rfq),
    };
  }

  async proposal(user: ApiUser, ref: string): Promise<RfqProposalView> {
    return this.erp(user, `/rfqs/${await this.idOf(user, ref)}/proposal`);
  }

  async message(user: ApiUser, ref: string, messageId: number): Promise<RfqMessageView> {
    const id = await this.idOf(user, ref);
    const { items } = await this.erp<{ items: RfqMessageView[] }>(user, `/rfqs/${id}/messages`);
    const found = items.find((m) => m.id === messageId);
    if (!found) throw notFound(`询价单 ${ref} 没有邮件 ${messageId} / RFQ ${ref} has no message ${messageId}`);
    return found;
  }

  /** A kept attachment of one of the RFQ's mails, as the ERP streams it (a download, never shown inline). */
  async attachment(user: ApiUser, ref: string, messageId: number, position: number): Promise<Response> {
    const id = await this.idOf(user, ref);
    const res = await fetch(`${this.erpUrl}/rfqs/${id}/messages/${messageId}/attachments/${position}`, {
      headers: {
        authorization: `Bearer ${user.token}`,
        'x-project-id': user.projectId,
        'x-trace-id': `rfqs-${user.username}`,
      },
    }).catch(() => undefined);
    if (res?.status === 404) throw notFound(`没有这个附件 / no attachment ${position} of message ${messageId}`);
    if (!res?.ok)
      throw new ProblemError(503, 'erp_unavailable', `ERP 不可用 / ERP unavailable (${res?.status ?? 'no answer'})`);
    return new Response(res.body, {
      headers: {
        'content-type': 'application/octet-stream',
        'content-disposition': res.headers.get('content-disposition') ?? 'attachment',
        'x-content-type-options': 'nosniff',
      },
    });
  }

  /** The id of an RFQ given by id or by number; a number nobody in the user's project holds is a 404. */
  private async idOf(user: ApiUser, ref: string): Promise<number> {
    if (/^\d{1,10}$/.test(ref)) return Number(ref);
    if (!RFQ_NUMBER.test(ref)) throw notFound(`没有询价单 ${ref} / no RFQ ${ref}`);
    const wanted = ref.toUpperCase();
    for (let page = 1; page <= NUMBER_SEARCH_PAGES; page++) {
      const listed = await this.list(user, page, 100);
      const found = listed.items.find((r) => r.rfqNo === wanted);
      if (found) return found.id;
      if (page * listed.size >= listed.total) break;
    }
    throw notFound(`没有询价单 ${ref} / no RFQ ${ref}`);
  }

  private erp<T>(user: ApiUser, path: string, request?: Parameters<typeof erpAsUser>[5]) {
    return erpAsUser<T>(this.erpUrl, user, 'rfqs', 'GET', path, request);
  }
}

/** Whether the user may award the RFQ: the ERP's own rule (its creator or an admin, never a viewer) and its state. */
function awardPermission(
  user: ApiUser,
  rfq: Pick<RfqDetailView, 'status' | 'createdBy'>,
): RfqDetailView['permissions'] {
  if (isReadOnly(user)) return { award: false, reason: '只读用户不能授标 / a viewer cannot award' };
  if (user.role !== 'admin' && rfq.createdBy.username !== user.username)
    return {
      award: false,
      reason: '只有询价单的创建人或管理员可以授标 / only the RFQ’s creator or an admin awards it',
    };
  if (!['sent', 'collecting', 'closed'].includes(rfq.status))
    return { award: false, reason: `询价单状态为 ${rfq.status}，不能授标 / an RFQ in ${rfq.status} cannot be awarded` };
  return { award: true, reason: null };
}
