import type { BaseStore, Item } from '@langchain/langgraph';
import { userNamespace } from '../../agent/index.ts';
import { redactSecretsIn } from '../../shared/index.ts';
import type { ApiUser } from '../auth.ts';

/**
 * The Agent Protocol's store on Procura's own (SQLite, or PostgreSQL with `DATABASE_URL`), one area per user: every
 * namespace a client names lives under its user's `['procura', <user>, 'protocol']`, which it never sees, so no
 * client can name, search or list another user's items. Values are redacted of secrets where they enter, as
 * everything written to the store is.
 */
export class ProtocolStore {
  constructor(private readonly store: () => Promise<BaseStore>) {}

  async put(user: ApiUser, namespace: string[], key: string, value: Record<string, unknown>): Promise<void> {
    const redacted = await redactSecretsIn(value, [user.token]);
    await (await this.store()).put(own(user, namespace), key, redacted);
  }

  async get(user: ApiUser, namespace: string[], key: string) {
    const item = await (await this.store()).get(own(user, namespace), key);
    return item ? itemOf(item) : null;
  }

  async delete(user: ApiUser, namespace: string[], key: string): Promise<void> {
    await (await this.store()).delete(own(user, namespace), key);
  }

  async search(
    user: ApiUser,
    prefix: string[],
    options: { filter?: Record<string, unknown>; query?: string; limit: number; offset: number },
  ) {
    const items = await (await this.store()).search(own(user, prefix), options);
    return { items: items.map((item) => ({ ...itemOf(item), ...('score' in item && { score: item.score }) })) };
  }

  async namespaces(
    user: ApiUser,
    options: { prefix?: string[]; suffix?: string[]; max_depth?: number; limit: number; offset: number },
  ) {
    const area = own(user, []);
    const found = await (await this.store()).listNamespaces({
      prefix: [...area, ...(options.prefix ?? [])],
      suffix: options.suffix,
      maxDepth: options.max_depth && options.max_depth + AREA_DEPTH,
      limit: options.limit,
      offset: options.offset,
    });
    return { namespaces: found.map((namespace) => namespace.slice(AREA_DEPTH)) };
  }
}

/** How deep the user's area is: the labels a client's namespace is stripped of on the way out. */
const AREA_DEPTH = userNamespace('-', 'protocol').length;

function own(user: ApiUser, namespace: string[]): string[] {
  return [...userNamespace(user.username, 'protocol'), ...namespace];
}

/** An item as the protocol sends it: the client's own namespace, times as ISO text. */
function itemOf(item: Item) {
  return {
    namespace: item.namespace.slice(AREA_DEPTH),
    key: item.key,
    value: item.value,
    created_at: new Date(item.createdAt).toISOString(),
    updated_at: new Date(item.updatedAt).toISOString(),
  };
}
