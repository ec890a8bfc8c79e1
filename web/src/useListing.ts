import { useCallback, useEffect, useState } from 'react';
import type { ChatClient } from '../../src/protocol/index.ts';

/**
 * The `items` of a list the client reads, read when the component mounts and again on `load()`; a failed read keeps
 * the last items and says why in `error`. `read` is a module-level function, so the reading happens once per client.
 */
export function useListing<T>(client: ChatClient, read: (client: ChatClient) => Promise<{ items: T[] }>) {
  const [items, setItems] = useState<T[]>();
  const [error, setError] = useState<string>();
  const load = useCallback(async () => {
    try {
      setItems((await read(client)).items);
      setError(undefined);
    } catch (e) {
      setError((e as Error).message);
    }
  }, [client, read]);
  useEffect(() => {
    void load();
  }, [load]);
  return { items, error, setError, load };
}
