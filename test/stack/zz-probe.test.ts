import { it } from 'vitest';
import { stackHarness, startStack } from '../../bench/eval/stack.ts';

it('probe', async () => {
  const stack = await startStack();
  try {
    const h = stackHarness(stack);
    const msgs: Array<[string, string]> = [
      ['a', '火花塞最近价格是涨是跌'],
      ['b', 'has the price of brake pads gone up this year?'],
      ['c', '帮我对刹车片做供应商比价分析'],
      ['c', '这一年是涨了还是跌了？'],
      ['d', '本周取消了哪些单子'],
      ['g', '博世的机油滤清器最近涨价了吗'],
    ];
    for (const [s, m] of msgs) {
      const t = await h.send(h.contextFor('laoxiao', `probe-${s}`), m);
      console.log(
        '=====',
        m,
        '\n',
        t.toolCalls.join(' | '),
        '\n',
        t.answer.slice(0, 1500),
        t.interrupts.length ? 'INTERRUPT' : '',
        t.error ?? '',
      );
    }
  } finally {
    await stack.close();
  }
}, 600_000);
