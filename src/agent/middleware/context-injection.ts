import { createMiddleware } from 'langchain';
import { isReadOnly } from '../../protocol/index.ts';
import { preferencesPath, runContext, runContextSchema } from '../context.ts';
import { silently } from './silent.ts';

/** The user-context paragraph for the system prompt; undefined when there is no usable context (seed's 3-level fallback). */
export function userContextText(context: unknown): string | undefined {
  const ctx = runContext({ context });
  if (!ctx) return undefined;
  const name = ctx.username?.trim() || ctx.userId;
  return [
    `当前用户 user_id: ${ctx.userId}，姓名: ${name}，角色: ${ctx.role}${ctx.projectId ? `，项目: ${ctx.projectId}` : ''}。`,
    `偏好文件: ${preferencesPath(ctx.userId)}（系统自动维护 recent_suppliers / recent_queries，你无需手动更新；需要时先 read_file 读取）。`,
    isReadOnly(ctx) ? '该用户只读：不能创建或修改订单。/ This user is read-only: no order changes.' : '',
  ]
    .filter(Boolean)
    .join('\n');
}

/** [1] Puts who the user is and where their preferences live into every model call's system prompt. */
export function createContextInjectionMiddleware() {
  return createMiddleware({
    name: 'ContextInjectionMiddleware',
    contextSchema: runContextSchema,
    wrapModelCall: async (request, handler) => {
      const text = await silently('ContextInjectionMiddleware', request.runtime, async () =>
        userContextText(request.runtime.context),
      );
      if (!text) return handler(request);
      return handler({ ...request, systemMessage: request.systemMessage.concat(`\n\n${text}`) });
    },
  });
}
