import { type Attributes, createContextKey } from '@opentelemetry/api';

/** Who a piece of work is for: stamped on every span started inside it. */
export interface Conversation {
  sessionId: string;
  userId: string;
  runId?: string;
}

/** Where the current conversation is kept in the OpenTelemetry context. */
export const CONVERSATION = createContextKey('procura.conversation');

/** The span attributes naming a conversation (GenAI semantic conventions plus the user). Never a token. */
export function conversationAttributes(c: Conversation): Attributes {
  return {
    'gen_ai.conversation.id': c.sessionId,
    'user.id': c.userId,
    ...(c.runId ? { 'procura.run.id': c.runId } : {}),
  };
}
