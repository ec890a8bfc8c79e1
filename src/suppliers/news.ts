/**
 * A small industry-news site next to the shops: price trends and supply news for the demo part categories.
 * Search indexes it and `fetch_url` can read it, like any news page on the web.
 */
export interface NewsArticle {
  slug: string;
  date: string;
  title: string;
  /** Paragraphs, plain text. */
  body: string[];
  tags: string[];
}

export const NEWS_ARTICLES: readonly NewsArticle[] = [
  {
    slug: 'nickel-price-spark-plugs-2026q2',
    date: '2026-04-22',
    title: '镍价回落，摩托车火花塞报价二季度有望下调 3%–5%',
    body: [
      '受上游镍合金电极材料价格回落影响，多家火花塞厂商在四月下旬的经销商会议上表示，二季度 F7TC、D8TC、A7TC 等常用摩托车火花塞型号的出厂价有望下调 3% 至 5%。',
      '业内人士指出，国产品牌火炬（株洲）凭借本地化供应链，报价已明显低于国际品牌；博世、NGK 的铱金火花塞（如 CR7HIX）则因铱金供应偏紧维持高位。',
      '建议采购方在签订年度框架协议前比对各供应商官网阶梯价，关注起订量（MOQ）档位。',
    ],
    tags: ['火花塞', 'spark plug', '价格趋势', '镍'],
  },
  {
    slug: 'iridium-supply-tight',
    date: '2026-03-15',
    title: 'Iridium supply stays tight: premium spark plug prices up 8% year on year',
    body: [
      'Iridium spark plugs such as the CR7HIX continue to cost more: spot iridium prices rose again in Q1 and suppliers including Bosch, Denso and NGK raised list prices for iridium lines by around 8% year on year.',
      'Buyers of scooter fleets are advised to compare iridium and nickel plugs on total cost per service interval rather than on unit price alone.',
    ],
    tags: ['spark plug', 'iridium', 'price trend'],
  },
  {
    slug: 'brake-pad-copper-free',
    date: '2026-02-28',
    title: '无铜刹车片新规推动摩托车刹车片成本上升',
    body: [
      '多地环保新规要求刹车片降低铜含量，陶瓷配方刹车片需求上升。布雷博、博世等品牌的 125cc、150cc 摩托车刹车片报价较去年同期上涨约 6%。',
      '德尔福表示其半金属配方刹车片（BP-125F）库存充足，交货期维持在两周左右。',
    ],
    tags: ['刹车片', 'brake pad', '价格趋势'],
  },
  {
    slug: 'oil-filter-paper-shortage',
    date: '2026-04-05',
    title: 'Filter paper shortage eases; oil filter lead times back to two weeks',
    body: [
      'After a winter shortage of filter media, oil filter makers report normal lead times again. MAHLE quotes about 15 days for the HF204 motorcycle oil filter and the W712 car filter.',
      'Denso has cut its web price for the HF204 to win motorcycle OEM volume, undercutting its own distributor list price by almost a fifth.',
    ],
    tags: ['oil filter', '机油滤清器', 'lead time'],
  },
  {
    slug: 'chain-steel-prices',
    date: '2026-01-18',
    title: '钢材价格企稳，摩托车链条价格全年预计持平',
    body: [
      '大同链条、恒久链传动等厂商表示，428H 加厚链条与 520 油封链条的价格在 2026 年预计保持平稳。正时链条（25H-90L）因需求增长，部分规格交货期延长至三周。',
      '恒久链传动报价通常低于大同链条 20% 以上，但要求款到发货。',
    ],
    tags: ['链条', 'chain', '钢材'],
  },
  {
    slug: 'natural-rubber-tyres',
    date: '2026-03-30',
    title: '天然橡胶价格上涨，摩托车轮胎企业酝酿提价',
    body: [
      '东南亚天然橡胶主产区减产，三月天然橡胶期货价格上涨约 9%。朝阳轮胎、正新轮胎等企业表示，2.75-18、90/90-18 等常用摩托车轮胎规格可能在二季度提价。',
      '正新轮胎官网目前对 90/90-18 真空胎有促销价，较经销商目录价低约两成，促销截止日期未公布。',
    ],
    tags: ['轮胎', 'tyre', '橡胶', '价格趋势'],
  },
  {
    slug: 'lead-battery-recycling',
    date: '2026-02-10',
    title: 'Lead prices and recycling rules push motorcycle battery costs',
    body: [
      'Maintenance-free motorcycle batteries such as the YTX7L-BS saw a 4% price rise over the winter as lead prices climbed and new recycling fees took effect.',
      'VARTA and Bosch keep AGM car batteries (L2-400) on allocation for OEM customers; lead times are around two weeks.',
    ],
    tags: ['battery', '蓄电池', 'lead'],
  },
  {
    slug: 'ignition-coil-chips',
    date: '2026-04-12',
    title: '点火线圈供应恢复正常，芯片短缺影响减弱',
    body: [
      '随着车规级芯片供应恢复，摩托车点火线圈（IC-125 等）交货期已从去年的六周缩短至两周左右。电装、博世报价基本稳定，火炬报价仍为最低档。',
    ],
    tags: ['点火线圈', 'ignition coil', '供应'],
  },
  {
    slug: 'supplier-price-verification',
    date: '2026-04-28',
    title: '采购比价提示：官网价格常与合同价不一致',
    body: [
      '行业调查显示，约三成供应商的官网公开价与其向大客户提供的合同价存在 10% 以上差异，且官网价格更新滞后。建议在比价时记录价格的更新日期、币种与起订量档位，并以书面报价为准。',
      '部分供应商官网以美元标价（如 NGK 中国站），比价时需按当期汇率换算。',
    ],
    tags: ['比价', 'price comparison', '采购'],
  },
  {
    slug: 'torch-capacity-expansion',
    date: '2026-03-02',
    title: 'Torch expands spark plug capacity in Zhuzhou',
    body: [
      'Torch, the Zhuzhou-based spark plug maker, opened a second production line for F7TC and D8TC motorcycle spark plugs. The company now quotes seven-day lead times and has lowered its F7TC web price well below the market average.',
    ],
    tags: ['spark plug', 'Torch', '火炬', 'capacity'],
  },
];
