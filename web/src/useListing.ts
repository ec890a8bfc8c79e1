import { useCallback, useEffect, useState } from 'react';
import type { ChatClient } from '../../src/protocol/index.ts';

/**
 * The `items` of a `GET` list route, read when the component mounts and again on `load()`; a failed read keeps
 * the last items and says why in `error`.
 */
export function useListing<T>(client: ChatClient, route: string) {
  const [items, setItems] = useState<T[]>();
  const [error, setError] = useState<string>();
  const load = useCallback(async () => {
    try {
      setItems((await client.json<{ items: T[] }>('GET', route)).items);
      setError(undefined);
    } catch (e) {
      setError((e as Error).message);
    }
  }, [client, route]);
  useEffect(() => {
    void load();
  }, [load]);
  return { items, error, setError, load };
}
