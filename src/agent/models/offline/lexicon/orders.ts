/**
 * The order-line lexicon, per language: the words that join the lines of one request ("F7TC 200个和D8TC 100个",
 * "200 F7TC and 100 D8TC") and the phrasings that ask for an order to be split into several ("分三单下", "split into
 * three orders"). Data only; reading/lines.ts reads requests with it.
 */

/** Words joining two order lines; a request is cut at them only where each side holds a quantity of its own. */
export const LINE_JOINERS = {
  zh: ['以及', '还有', '另外', '外加', '再加上', '和', '跟', '及', '加'],
  en: ['and also', 'as well as', 'plus', 'and', 'also'],
} as const;

/** How many orders a request asks to be split into: the count is said between these words. */
export const SPLIT_PHRASES = {
  zh: {
    before: ['分成', '拆成', '分', '拆'],
    after: ['单', '张单', '个单', '张订单', '个订单', '笔', '批', '次下单', '次'],
  },
  en: {
    before: ['split into', 'split it into', 'split across', 'spread over', 'spread across', 'in', 'as', 'over'],
    after: [
      'separate orders',
      'orders',
      'separate pos',
      'pos',
      'purchase orders',
      'deliveries',
      'batches',
      'shipments',
    ],
  },
} as const;
