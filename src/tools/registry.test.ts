import { describe, expect, it } from 'vitest';
import { z } from 'zod';
import { isToolFailure, Tool, type ToolContext, ToolError, ToolRegistry, type ToolSpec } from './registry.ts';

/** A declaration for these tests, where only the name, safety and schema matter. */
function spec<S extends z.ZodType>(name: string, safety: ToolSpec['safety'], schema: S): ToolSpec<S> {
  return { name, label: name, description: name, schema, safety, group: 'test' };
}

class Ledger {
  constructor(readonly owner: string) {}

  @Tool(spec('test_ledger_read', 'read-only', z.object({ id: z.number().int() })))
  async read(input: { id: number }) {
    if (input.id === 404) throw new ToolError('no such entry', 'look the id up first');
    if (input.id === 500) throw new Error('disk on fire');
    return { id: input.id, owner: this.owner };
  }

  @Tool(spec('test_ledger_write', 'write', z.object({ amount: z.number().positive() })))
  async write(input: { amount: number }) {
    return { written: input.amount };
  }
}

const buyer: ToolContext = { userId: 'laoxiao', role: 'buyer', traceId: 't-1' };
const registry = new ToolRegistry().register(Ledger, (ctx) => new Ledger(ctx.userId));

describe('ToolRegistry', () => {
  it('runs a declared method on an instance made for the caller', async () => {
    expect(await registry.execute('test_ledger_read', { id: 7 }, buyer)).toEqual({ id: 7, owner: 'laoxiao' });
  });

  it('freezes declarations and derives write defaults', () => {
    const write = registry.get('test_ledger_write')!;
    expect(Object.isFrozen(write)).toBe(true);
    expect(Object.isFrozen(write.jsonSchema)).toBe(true);
    expect(write).toMatchObject({ approval: 'required', execution: 'sequential', safety: 'write' });
    expect(registry.get('test_ledger_read')).toMatchObject({ approval: 'none', execution: 'parallel' });
  });

  it('validates before calling and names the bad field', async () => {
    const result = await registry.execute('test_ledger_read', { id: 'x' }, buyer);
    expect(isToolFailure(result)).toBe(true);
    expect(result).toMatchObject({ stateChanged: false, error: expect.stringContaining('id') });
  });

  it('turns known and unexpected failures into data', async () => {
    expect(await registry.execute('test_ledger_read', { id: 404 }, buyer)).toEqual({
      success: false,
      error: 'no such entry',
      stateChanged: false,
      suggestion: 'look the id up first',
    });
    const seen: unknown[] = [];
    const result = await registry.execute('test_ledger_read', { id: 500 }, buyer, {}, (e) => seen.push(e));
    expect(result).toMatchObject({ success: false, error: expect.stringContaining('disk on fire') });
    expect(seen).toHaveLength(1);
    expect(await registry.execute('nope', {}, buyer)).toMatchObject({ success: false });
  });

  it('gives read-only contexts no write tools and refuses their writes', async () => {
    expect(registry.list({ role: 'viewer' }).map((t) => t.name)).not.toContain('test_ledger_write');
    expect(registry.list({ role: 'buyer', readOnly: true }).map((t) => t.name)).not.toContain('test_ledger_write');
    expect(registry.list({ role: 'buyer' }).map((t) => t.name)).toContain('test_ledger_write');
    expect(await registry.execute('test_ledger_write', { amount: 1 }, { ...buyer, role: 'viewer' })).toMatchObject({
      success: false,
    });
  });

  it('refuses duplicate names and private methods', () => {
    expect(() => {
      class Twin {
        @Tool(spec('test_ledger_read', 'read-only', z.object({})))
        async again() {}
      }
      return Twin;
    }).toThrow(/declared twice/);
    expect(() => {
      class Hidden {
        @Tool(spec('test_hidden', 'read-only', z.object({})))
        async #secret() {}

        reveal() {
          return this.#secret();
        }
      }
      return Hidden;
    }).toThrow(/public instance/);
  });
});

describe('approval and remote tools', () => {
  it('refuses a call that needs approval until a human approved it', async () => {
    expect(registry.requiresApproval('test_ledger_write', { amount: 1 })).toBe(true);
    expect(registry.requiresApproval('test_ledger_read', { id: 1 })).toBe(false);
    expect(await registry.execute('test_ledger_write', { amount: 1 }, buyer)).toMatchObject({
      success: false,
      error: expect.stringContaining('approval'),
    });
    expect(await registry.execute('test_ledger_write', { amount: 1 }, buyer, { approved: true })).toEqual({
      written: 1,
    });
  });

  it('registers a tool described by JSON schema and runs it with the caller context', async () => {
    const remote = new ToolRegistry().registerRemote(
      spec('test_remote_echo', 'read-only', z.object({ text: z.string() })),
      { type: 'object', properties: { text: { type: 'string' } } },
      async (input, ctx) => ({ echoed: (input as { text: string }).text, by: ctx.userId }),
    );
    expect(remote.get('test_remote_echo')?.jsonSchema).toEqual({
      type: 'object',
      properties: { text: { type: 'string' } },
    });
    expect(await remote.execute('test_remote_echo', { text: 'hi' }, buyer)).toEqual({ echoed: 'hi', by: 'laoxiao' });
    expect(await remote.execute('test_remote_echo', { text: 1 }, buyer)).toMatchObject({ success: false });
  });
});
