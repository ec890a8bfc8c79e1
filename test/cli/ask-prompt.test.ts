import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type StartedStack, startStack } from '../../bench/eval/stack.ts';
import { FREE_TEXT_CHOICE } from '../../src/protocol/index.ts';
import { sleep } from '../../src/shared/index.ts';
import { hasScript, terminalChat } from './terminal.ts';

/**
 * `procura chat` at a person's terminal answering question cards: the ERP's candidates are numbered with
 * "其他（自己填写）/ Other (type it)" last; a digit picks an option, the last number opens a line to type on, and the
 * run goes on to a draft for what was chosen.
 */
let stack: StartedStack;

beforeAll(async () => {
  stack = await startStack();
}, 120_000);
afterAll(async () => {
  await stack?.close();
});

const escaped = (s: string) => s.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');

describe.skipIf(!hasScript)('the terminal question prompts', () => {
  it('numbers the options with Other last; a number picks one, Other takes typed text; the draft follows', async () => {
    const t = terminalChat(stack.apiUrl, stack.tokens.laoxiao);
    try {
      await t.waitFor(/你 \/ you/);
      t.type('帮我订一些火花塞\r');
      // The request restated, then the suppliers numbered, Other (type it) after them.
      await t.waitFor(/要订火花塞，请选择供应商并填写数量/);
      await t.waitFor(new RegExp(`\\d\\. ${escaped(FREE_TEXT_CHOICE.label)}`));
      const screen = t.plain().slice(t.plain().indexOf('要订火花塞'));
      const numbered = [...screen.matchAll(/(\d)\. (.+?)(?: · \d+ 个零部件|$)/gm)].map((m) => [Number(m[1]), m[2]]);
      const others = numbered.filter(([, label]) => String(label).startsWith(FREE_TEXT_CHOICE.label));
      expect(others.map(([n]) => n)).toEqual([numbered.length]);
      expect(numbered.map(([n]) => n)).toEqual(numbered.map((_, i) => i + 1));
      const second = String(numbered[1][1]).trim();
      // A key pressed once the prompt is drawn: the digit moves to the option, Enter takes it.
      await sleep(800);
      t.type('2');
      await sleep(200);
      t.type('\r');
      await t.waitFor(/数量 \/ quantity/);
      t.type('300\r');

      // Which of that supplier's plugs: typed instead of picked, by the model's name.
      await t.waitFor(new RegExp(`要向${escaped(second)}订 300 只火花塞`));
      await t.waitFor(new RegExp(`\\d\\. ${escaped(FREE_TEXT_CHOICE.label)}`), 2);
      const parts = t.plain().slice(t.plain().lastIndexOf('要向'));
      const last = Math.max(...[...parts.matchAll(/^\D*(\d)\. /gm)].map((m) => Number(m[1])));
      await sleep(800);
      t.type(String(last));
      await sleep(200);
      t.type('\r');
      await t.waitFor(new RegExp(`\\? ${escaped(FREE_TEXT_CHOICE.label)}`));
      t.type('F7TC\r');

      // The approval card: the supplier picked by number, the part typed.
      await t.waitFor(/如何处理/);
      const card = t.plain().slice(t.plain().lastIndexOf('需要审批'));
      expect(card).toContain(`供应商 / supplier: ${second}`);
      expect(card).toMatch(/1\. \S+-F7TC .+ × 300/);
      t.type('\x03');
      await t.waitFor(/已取消，未做决定/);
      await t.waitFor(/\? 你 \/ you\s*$/);
      t.type('\x03');
      expect(await t.exited()).toBe(0);
    } finally {
      t.child.kill();
    }
  }, 240_000);
});
