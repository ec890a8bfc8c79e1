/**
 * Everyday phrasings of Procura's flows, each with the end state it must reach. Suppliers are named the way a buyer
 * names them and parts by model; the test resolves both in the ERP it runs against.
 * `{pending}`, `{draft}` and `{received}` stand for order numbers the test reads from the ERP.
 */

/** What a decision in an earlier turn of a follow-up does. */
export type Setup = { say: string; decide: 'approve' | 'reject'; pick?: string };

export type Expect =
  /** The approval card of `order_create` carries this supplier (a name as buyers write it), model and quantity. */
  | { kind: 'order'; supplier: string; model: string; quantity: number; due?: 'date' | 'friday' }
  /** Of the parts of this model at or under the price, the only one is ordered — or the user is asked to choose. */
  | { kind: 'orderUnder'; model: string; maxPrice: number; quantity: number }
  /** The run stops with a question (`ask_user` or `request_order_info`). */
  | { kind: 'ask'; via?: 'ask_user' | 'order_info' }
  /** No question and no order: the answer says why. */
  | { kind: 'refused' }
  /** A comparison result and report for this model, or for a model whose name contains `name`. */
  | { kind: 'analysis'; model?: string; name?: string; suppliers?: number }
  /** The ERP's most urgent stock warning is in the answer. */
  | { kind: 'inventory' }
  /** Order numbers listed, every one matching the filter. */
  | { kind: 'lookup'; filter: 'mine' | 'pending' | 'any' | { supplier: string } }
  /** The status of the order the text names. */
  | { kind: 'status'; order: 'pending' | 'received' | 'draft' | 'previous' }
  /** The approval card of `order_cancel` for the named order (or the one the earlier turn created). */
  | { kind: 'cancel'; order: 'pending' | 'draft' | 'previous' }
  /** The approval card of `order_update` for the named order with the change. */
  | { kind: 'update'; order: 'pending' | 'draft' | 'previous'; quantity?: number; note?: string; due?: 'friday' }
  | { kind: 'greeting' }
  | { kind: 'help' };

export interface Case {
  say: string;
  expect: Expect;
  /** Earlier turns of the same conversation (follow-ups). */
  before?: Setup[];
  user?: 'laoxiao' | 'viewer';
}

const order = (supplier: string, model: string, quantity: number, due?: 'date' | 'friday'): Expect => ({
  kind: 'order',
  supplier,
  model,
  quantity,
  due,
});
const ask: Expect = { kind: 'ask' };
const analysis = (model: string | undefined, name?: string): Expect => ({ kind: 'analysis', model, name });
const inventory: Expect = { kind: 'inventory' };

export const CORPUS: Case[] = [
  // Orders, Chinese
  { say: '给博世下 200 个 F7TC 火花塞的采购单', expect: order('博世', 'F7TC', 200) },
  { say: '从博世买200个F7TC火花塞', expect: order('博世', 'F7TC', 200) },
  { say: '补货：F7TC火花塞200个，博世', expect: order('博世', 'F7TC', 200) },
  { say: '给电装下300只D8TC', expect: order('电装', 'D8TC', 300) },
  { say: '向NGK订购两百只A7TC火花塞', expect: order('NGK', 'A7TC', 200) },
  { say: '帮我从德尔福进一批F7TC，数量五百', expect: order('德尔福', 'F7TC', 500) },
  { say: '冠军的D8TC来一千只', expect: order('冠军', 'D8TC', 1000) },
  { say: '火炬 A7TC 火花塞 300 个，下周五前到货', expect: order('火炬', 'A7TC', 300, 'friday') },
  { say: '请给马勒下 200 个 HF204 机油滤清器的订单', expect: order('马勒', 'OF-HF204', 200) },
  { say: '买 100 副布雷博的 BP-125F 刹车片', expect: order('布雷博', 'BP-125F', 100) },
  { say: '从大同链条采购60条428H-118L链条', expect: order('大同', '428H-118L', 60) },
  { say: '恒久的520-120L链条要30条', expect: order('恒久', '520-120L', 30) },
  { say: '正新轮胎 90/90-18 真空胎 40条', expect: order('正新', '90/90-18', 40) },
  { say: '朝阳 2.75-18 轮胎下单 50 条', expect: order('朝阳', '2.75-18', 50) },
  { say: '瓦尔塔 YTX7L-BS 蓄电池 30块', expect: order('瓦尔塔', 'YTX7L-BS', 30) },
  { say: '博世电瓶YTX7L-BS要40块', expect: order('博世', 'YTX7L-BS', 40) },
  { say: '电装点火线圈 IC-125 采购 60 个', expect: order('电装', 'IC-125', 60) },
  { say: '给博世下一单：空气滤清器 AF-125，150个', expect: order('博世', 'AF-125', 150) },
  { say: '马勒机滤 HF112 订 400 个', expect: order('马勒', 'OF-HF112', 400) },
  { say: '博世的铱金火花塞来100只', expect: order('博世', 'CR7HIX', 100) },
  { say: '电装 摩托车机油滤清器 200个', expect: order('电装', 'OF-HF204', 200) },
  { say: '布雷博 摩托车后刹车片 60副', expect: order('布雷博', 'BP-150R', 60) },
  { say: '我要从火炬进货 F7TC 两百只', expect: order('火炬', 'F7TC', 200) },
  { say: '麻烦帮忙订一下电装的A7TC，三百个', expect: order('电装', 'A7TC', 300) },
  { say: '帮我下个单，NGK，D8TC，1k', expect: order('NGK', 'D8TC', 1000) },
  { say: '12月15日前从冠军采购300只F7TC', expect: order('冠军', 'F7TC', 300, 'date') },
  { say: '德尔福的刹车片BP-150R，要八十副，月底前交货', expect: order('德尔福', 'BP-150R', 80, 'date') },
  { say: '下周三之前，向火炬订 120 条 25H-90L 正时链条', expect: order('火炬', '25H-90L', 120, 'date') },
  { say: '帮我采购：电装 D8TC × 250', expect: order('电装', 'D8TC', 250) },
  { say: '需要 150 只博世 A7TC，尽快', expect: order('博世', 'A7TC', 150) },
  { say: '再帮我跟冠军订二百五十只A7TC', expect: order('冠军', 'A7TC', 250) },
  { say: '从正新买 20 条踏板车轮胎 3.00-10', expect: order('正新', '3.00-10', 20) },
  { say: '大同的油封链条 520-120L 来 25 条', expect: order('大同', '520-120L', 25) },
  { say: '火炬的 HF112 机油滤芯订 300 个', expect: order('火炬', 'OF-HF112', 300) },
  { say: '给德尔福下单，点火线圈IC-125，一百个', expect: order('德尔福', 'IC-125', 100) },
  { say: '马勒空滤AF-125要两百个', expect: order('马勒', 'AF-125', 200) },
  // Orders, full-width characters
  { say: '给博世下２００个Ｆ７ＴＣ火花塞的采购单', expect: order('博世', 'F7TC', 200) },
  { say: '从电装采购３００只　Ｄ８ＴＣ', expect: order('电装', 'D8TC', 300) },
  { say: 'ｏｒｄｅｒ ２００ ｐｃｓ Ｆ７ＴＣ ｆｒｏｍ Ｂｏｓｃｈ', expect: order('博世', 'F7TC', 200) },
  { say: '向ＮＧＫ订购１５０只Ａ７ＴＣ，１２月２０日前到', expect: order('NGK', 'A7TC', 150, 'date') },
  { say: '布雷博ＢＰ－１２５Ｆ刹车片，１００副', expect: order('布雷博', 'BP-125F', 100) },
  // Orders, English
  { say: 'Please buy 150 F7TC spark plugs from Denso', expect: order('电装', 'F7TC', 150) },
  { say: 'order 300 D8TC spark plugs from Bosch', expect: order('博世', 'D8TC', 300) },
  { say: 'I need 200 A7TC plugs from NGK', expect: order('NGK', 'A7TC', 200) },
  { say: 'Get me 500 F7TC from Champion', expect: order('冠军', 'F7TC', 500) },
  { say: 'purchase 120 BP-125F brake pads from Brembo', expect: order('布雷博', 'BP-125F', 120) },
  { say: 'buy two hundred D8TC from Delphi', expect: order('德尔福', 'D8TC', 200) },
  { say: 'Order 1.5k F7TC spark plugs from Torch', expect: order('火炬', 'F7TC', 1500) },
  { say: 'Can you order 60 chains 428H-118L from DID Chain?', expect: order('大同', '428H-118L', 60) },
  { say: 'We need 40 tyres 90/90-18 from CST', expect: order('正新', '90/90-18', 40) },
  { say: 'Order 25 YTX7L-BS batteries from VARTA by Friday', expect: order('瓦尔塔', 'YTX7L-BS', 25, 'friday') },
  { say: 'buy 100 front brake pads from Delphi', expect: order('德尔福', 'BP-125F', 100) },
  { say: 'place an order for 80 IC-125 ignition coils with Denso', expect: order('电装', 'IC-125', 80) },
  { say: 'Procure 250 oil filters HF204 from Mahle, needed by Dec 20', expect: order('马勒', 'OF-HF204', 250, 'date') },
  { say: 'buy 60 rear brake pads from Brembo', expect: order('布雷博', 'BP-150R', 60) },
  { say: 'Order 200 iridium spark plugs from NGK', expect: order('NGK', 'CR7HIX', 200) },
  { say: 'get 60 scooter tyres 3.00-10 from Chaoyang', expect: order('朝阳', '3.00-10', 60) },
  { say: 'purchase 100 timing chains from Hengjiu', expect: order('恒久', '25H-90L', 100) },
  // Orders, typos
  { say: 'Plesae buy 200 F7TC spark plgus from Bosh', expect: order('博世', 'F7TC', 200) },
  { say: 'ordr 300 D8TC from Densoo', expect: order('电装', 'D8TC', 300) },
  { say: 'buy 200 sprak plugs F7TC from Champoin', expect: order('冠军', 'F7TC', 200) },
  { say: 'purchse 100 brake pdas BP-125F from Bremmbo', expect: order('布雷博', 'BP-125F', 100) },
  { say: 'order 50 batteris YTX7L-BS from Varat', expect: order('瓦尔塔', 'YTX7L-BS', 50) },
  { say: 'buy 300 A7TC from Delphy', expect: order('德尔福', 'A7TC', 300) },
  // Orders, mixed languages
  { say: '帮我order 200个F7TC from 博世', expect: order('博世', 'F7TC', 200) },
  { say: '从Bosch买300只D8TC', expect: order('博世', 'D8TC', 300) },
  { say: 'Denso的A7TC来两百个', expect: order('电装', 'A7TC', 200) },
  { say: 'buy 100个 BP-125F 刹车片 from Delphi', expect: order('德尔福', 'BP-125F', 100) },
  { say: 'NGK F7TC 500 pcs 下单', expect: order('NGK', 'F7TC', 500) },
  { say: 'Brembo 后刹车片 BP-150R 要 50 sets', expect: order('布雷博', 'BP-150R', 50) },
  { say: '跟 Mahle 订 300 个 oil filter HF204', expect: order('马勒', 'OF-HF204', 300) },
  { say: 'CST 的 90/90-18 tyres 来 24 条', expect: order('正新', '90/90-18', 24) },
  // Price ceilings
  { say: '单价不超过10元的F7TC买200只', expect: { kind: 'orderUnder', model: 'F7TC', maxPrice: 10, quantity: 200 } },
  { say: '单价不超过15元的F7TC买200只', expect: { kind: 'orderUnder', model: 'F7TC', maxPrice: 15, quantity: 200 } },
  { say: 'buy 300 D8TC under ¥11 each', expect: { kind: 'orderUnder', model: 'D8TC', maxPrice: 11, quantity: 300 } },
  { say: '要 200 只 A7TC，单价 12 元以内', expect: { kind: 'orderUnder', model: 'A7TC', maxPrice: 12, quantity: 200 } },
  // Questions instead of guesses
  { say: '帮我向博世采购200个火花塞', expect: { kind: 'ask', via: 'ask_user' } },
  { say: '从博世买200个火花塞', expect: { kind: 'ask', via: 'ask_user' } },
  { say: '买200个F7TC', expect: { kind: 'ask', via: 'ask_user' } },
  { say: 'Please buy 150 spark plugs from Denso', expect: { kind: 'ask', via: 'ask_user' } },
  { say: '我要下单', expect: { kind: 'ask', via: 'order_info' } },
  { say: '给博世下个单', expect: { kind: 'ask', via: 'order_info' } },
  { say: '帮我给火炬下一个 F7TC 火花塞的采购单', expect: { kind: 'ask', via: 'order_info' } },
  { say: '买火花塞', expect: ask },
  { say: 'order some brake pads', expect: ask },
  { say: '订 50 只 F7TC，博世', expect: { kind: 'ask', via: 'order_info' } },
  { say: 'buy 20 D8TC from Denso', expect: { kind: 'ask', via: 'order_info' } },
  { say: '从电装采购一些火花塞', expect: ask },
  { say: '给布雷博下 100 副刹车片', expect: { kind: 'ask', via: 'ask_user' } },
  { say: 'I want to order D8TC from Bosch', expect: { kind: 'ask', via: 'order_info' } },
  { say: '滤清器比价', expect: { kind: 'ask', via: 'ask_user' } },
  { say: '帮我做个比价分析', expect: { kind: 'ask', via: 'ask_user' } },
  // Not possible: said plainly, nothing written
  { say: '从德尔福买100只铱金火花塞 CR7HIX', expect: { kind: 'refused' } },
  { say: '给瓦尔塔下 100 只 F7TC', expect: { kind: 'refused' } },
  { say: '给博世下 200 个 F7TC 火花塞的采购单', expect: { kind: 'refused' }, user: 'viewer' },
  // Analysis: any category with several suppliers
  { say: '帮我对摩托车火花塞做供应商比价分析', expect: analysis('F7TC') },
  { say: '比较一下各家刹车片的价格', expect: analysis('BP-125F') },
  { say: '帮我对摩托车刹车片做供应商比价分析', expect: analysis('BP-125F') },
  { say: 'compare suppliers for motorcycle brake pads', expect: analysis('BP-125F') },
  { say: '摩托车机油滤清器做个比价', expect: analysis('OF-HF204') },
  { say: '机油滤清器哪家便宜？', expect: analysis('OF-HF204') },
  { say: '链条供应商比价', expect: analysis(undefined, '链条') },
  { say: 'Compare tyre prices across suppliers', expect: analysis(undefined, '胎') },
  { say: '蓄电池比价，出个报告', expect: analysis('YTX7L-BS') },
  { say: '点火线圈各家报价对比一下', expect: analysis('IC-125') },
  { say: '空滤哪家最便宜', expect: analysis('AF-125') },
  { say: 'price trend of brake pads', expect: analysis(undefined, '刹车片') },
  { say: '火花塞最近的价格走势', expect: analysis(undefined, '火花塞') },
  { say: 'compare suppliers for oil filters', expect: analysis('OF-HF204') },
  { say: '对比博世和电装的F7TC价格', expect: { kind: 'analysis', model: 'F7TC', suppliers: 2 } },
  { say: '比较各家Ａ７ＴＣ的报价', expect: analysis('A7TC') },
  { say: 'compair prices for brake pads', expect: analysis(undefined, '刹车片') },
  { say: '帮我做个 spark plug 比价', expect: analysis(undefined, '火花塞') },
  { say: 'Which supplier is cheapest for D8TC?', expect: analysis('D8TC') },
  // Inventory warnings
  { say: '哪些零件快缺货了？', expect: inventory },
  { say: 'what parts are running low?', expect: inventory },
  { say: '库存预警', expect: inventory },
  { say: '哪些零部件低于安全库存？给出补货建议', expect: inventory },
  { say: '需要补货的零件有哪些', expect: inventory },
  { say: 'Show me the low stock items', expect: inventory },
  { say: '有没有快断货的东西', expect: inventory },
  { say: 'inventory warnings please', expect: inventory },
  { say: '库存不够用的有哪些？', expect: inventory },
  { say: 'anything out of stock soon?', expect: inventory },
  { say: '查看库存预警', expect: inventory },
  { say: 'ｓｔｏｃｋ ｗａｒｎｉｎｇ', expect: inventory },
  // Look-ups
  { say: '查一下我最近的采购订单', expect: { kind: 'lookup', filter: 'mine' } },
  { say: '我的订单', expect: { kind: 'lookup', filter: 'mine' } },
  { say: 'show my orders', expect: { kind: 'lookup', filter: 'mine' } },
  { say: '待审批的订单有哪些', expect: { kind: 'lookup', filter: 'pending' } },
  { say: 'show pending orders', expect: { kind: 'lookup', filter: 'pending' } },
  { say: '博世的订单', expect: { kind: 'lookup', filter: { supplier: '博世' } } },
  { say: 'orders from Denso', expect: { kind: 'lookup', filter: { supplier: '电装' } } },
  { say: '列出最近的订单', expect: { kind: 'lookup', filter: 'any' } },
  { say: '订单 {pending} 现在是什么状态？', expect: { kind: 'status', order: 'pending' } },
  { say: "What's the status of {received}?", expect: { kind: 'status', order: 'received' } },
  { say: '{draft} 到哪一步了', expect: { kind: 'status', order: 'draft' } },
  { say: '查询订单{received}', expect: { kind: 'status', order: 'received' } },
  // Cancel and change by number
  { say: '取消订单 {draft}，原因：需求变更', expect: { kind: 'cancel', order: 'draft' } },
  { say: 'cancel {pending}', expect: { kind: 'cancel', order: 'pending' } },
  { say: '把 {draft} 作废', expect: { kind: 'cancel', order: 'draft' } },
  { say: '撤销{pending}', expect: { kind: 'cancel', order: 'pending' } },
  { say: '把订单 {draft} 的数量改成 300', expect: { kind: 'update', order: 'draft', quantity: 300 } },
  { say: '{pending} 推迟到下周五交货', expect: { kind: 'update', order: 'pending', due: 'friday' } },
  { say: 'change the quantity of {draft} to 250', expect: { kind: 'update', order: 'draft', quantity: 250 } },
  { say: '{pending} 备注：加急', expect: { kind: 'update', order: 'pending', note: '加急' } },
  { say: '{draft}数量调整为四百', expect: { kind: 'update', order: 'draft', quantity: 400 } },
  { say: 'push {pending} to next Friday', expect: { kind: 'update', order: 'pending', due: 'friday' } },
  // Cancel or change without a number: the user picks
  { say: '取消我的订单', expect: { kind: 'ask', via: 'ask_user' } },
  { say: 'cancel my order', expect: { kind: 'ask', via: 'ask_user' } },
  // Greetings and what it can do
  { say: '早上好', expect: { kind: 'greeting' } },
  { say: '你好', expect: { kind: 'greeting' } },
  { say: 'Hello!', expect: { kind: 'greeting' } },
  { say: 'hi there', expect: { kind: 'greeting' } },
  { say: '谢谢', expect: { kind: 'greeting' } },
  { say: '你能做什么？', expect: { kind: 'help' } },
  { say: 'what can you do', expect: { kind: 'help' } },
  { say: '今天天气怎么样', expect: { kind: 'help' } },
  { say: '你好，你会什么？', expect: { kind: 'help' } },
  // Follow-ups in the same conversation
  {
    before: [{ say: '给博世下200个F7TC火花塞的采购单', decide: 'approve' }],
    say: '再来100个',
    expect: order('博世', 'F7TC', 100),
  },
  {
    before: [{ say: '给博世下200个F7TC火花塞的采购单', decide: 'approve' }],
    say: '取消刚才那个',
    expect: { kind: 'cancel', order: 'previous' },
  },
  {
    before: [{ say: '给电装下 200 只 A7TC', decide: 'approve' }],
    say: '改成300',
    expect: { kind: 'update', order: 'previous', quantity: 300 },
  },
  {
    before: [{ say: '给博世下200个F7TC火花塞的采购单', decide: 'reject' }],
    say: '改成300',
    expect: order('博世', 'F7TC', 300),
  },
  {
    before: [{ say: '给电装下 300 只 D8TC', decide: 'approve' }],
    say: '换成博世',
    expect: order('博世', 'D8TC', 300),
  },
  {
    before: [{ say: '从博世买200个火花塞', decide: 'approve', pick: 'F7TC' }],
    say: '再来100个',
    expect: order('博世', 'F7TC', 100),
  },
  {
    before: [{ say: 'order 300 D8TC spark plugs from Bosch', decide: 'approve' }],
    say: 'another 200 please',
    expect: order('博世', 'D8TC', 200),
  },
  {
    before: [{ say: 'Buy 200 F7TC from Denso', decide: 'approve' }],
    say: 'cancel that one',
    expect: { kind: 'cancel', order: 'previous' },
  },
  {
    before: [{ say: '给马勒下 200 个 HF204', decide: 'approve' }],
    say: '数量改为250',
    expect: { kind: 'update', order: 'previous', quantity: 250 },
  },
  {
    before: [{ say: '给冠军下500只F7TC', decide: 'reject' }],
    say: '那D8TC呢？',
    expect: order('冠军', 'D8TC', 500),
  },
  {
    before: [{ say: '给博世下200个F7TC火花塞的采购单', decide: 'approve' }],
    say: '再来一单，这次300个',
    expect: order('博世', 'F7TC', 300),
  },
  {
    before: [{ say: '帮我从电装采购200只A7TC', decide: 'approve' }],
    say: '同样的再订一次',
    expect: order('电装', 'A7TC', 200),
  },
  {
    before: [{ say: 'order 100 BP-125F brake pads from Brembo', decide: 'approve' }],
    say: 'push it to next Friday',
    expect: { kind: 'update', order: 'previous', due: 'friday' },
  },
  {
    before: [{ say: '给德尔福下 100 个 F7TC', decide: 'approve' }],
    say: '加个备注：尽快发货',
    expect: { kind: 'update', order: 'previous', note: '尽快发货' },
  },
  {
    before: [{ say: '给电装下 300 只 D8TC', decide: 'reject' }],
    say: '换成 NGK 吧，数量两百',
    expect: order('NGK', 'D8TC', 200),
  },
  {
    before: [{ say: 'buy 100 F7TC from Torch', decide: 'approve' }],
    say: 'same again from Champion',
    expect: order('冠军', 'F7TC', 100),
  },
  {
    before: [{ say: '给博世下200个F7TC火花塞的采购单', decide: 'approve' }],
    say: '那刹车片呢？',
    expect: { kind: 'ask', via: 'ask_user' },
  },
  {
    before: [{ say: '给布雷博下 60 副 BP-150R', decide: 'approve' }],
    say: '撤销上一单',
    expect: { kind: 'cancel', order: 'previous' },
  },
  {
    before: [{ say: '比较一下各家 A7TC 的报价', decide: 'approve' }],
    say: '那刹车片呢？',
    expect: analysis('BP-125F'),
  },
  {
    before: [{ say: 'Compare tyre prices', decide: 'approve' }],
    say: 'what about batteries?',
    expect: analysis('YTX7L-BS'),
  },
  {
    before: [{ say: '给博世下200个F7TC火花塞的采购单', decide: 'approve' }],
    say: '查一下刚才那个订单的状态',
    expect: { kind: 'status', order: 'previous' },
  },
  // Other parts and suppliers: codes without separators, days of the month, restocking, filters in other words
  { say: '麻烦向恒久链传动订购 180 条 25H-90L 正时链条', expect: order('恒久', '25H-90L', 180) },
  { say: 'pls order 300 pieces of HF112 oil filter cartridges from Torch', expect: order('火炬', 'OF-HF112', 300) },
  { say: '火炬那边的IC-125点火线圈，给我来一百五十个', expect: order('火炬', 'IC-125', 150) },
  { say: '博世ＣＲ７ＨＩＸ　６０只', expect: order('博世', 'CR7HIX', 60) },
  { say: 'Need 120 AF-125 air filters from Mahle asap', expect: order('马勒', 'AF-125', 120) },
  { say: '下单：冠军 HF204 机滤 二百个', expect: order('冠军', 'OF-HF204', 200) },
  { say: '向朝阳轮胎采购踏板车胎3.00-10共30条，本月25号前送到', expect: order('朝阳', '3.00-10', 30, 'date') },
  { say: 'buy 2k D8TC plugs off Torch', expect: order('火炬', 'D8TC', 2000) },
  { say: 'Champion CR7HIX x 80', expect: order('冠军', 'CR7HIX', 80) },
  { say: '电装 HF204 机油格 100个', expect: order('电装', 'OF-HF204', 100) },
  { say: '订购德尔福BP150R刹车片70副', expect: order('德尔福', 'BP-150R', 70) },
  { say: 'order 50 batteries YTX7LBS from Bosch', expect: order('博世', 'YTX7L-BS', 50) },
  { say: 'oder 100 F7TC from Delpih', expect: order('德尔福', 'F7TC', 100) },
  { say: 'buy 400 timing chians 25H-90L from Hengjiu', expect: order('恒久', '25H-90L', 400) },
  { say: '从瓦尔塔买点电瓶', expect: ask },
  { say: 'buy tyres from CST', expect: ask },
  { say: '帮我订300条链条', expect: ask },
  { say: '正时链条哪家报价最低？', expect: analysis('25H-90L') },
  { say: 'which vendor has the cheapest ignition coils', expect: analysis('IC-125') },
  { say: '对比下各家铱金火花塞价格', expect: analysis('CR7HIX') },
  { say: '电瓶价格走势怎么样', expect: analysis('YTX7L-BS') },
  { say: 'compare prices of air filters', expect: analysis('AF-125') },
  { say: '机滤芯HF112比价', expect: analysis('OF-HF112') },
  { say: '库存告急的有哪些', expect: inventory },
  { say: 'which items need restocking?', expect: inventory },
  { say: '低库存清单发我一下', expect: inventory },
  { say: '看看我下过的单', expect: { kind: 'lookup', filter: 'mine' } },
  { say: 'list orders waiting for approval', expect: { kind: 'lookup', filter: 'pending' } },
  { say: '火炬的采购单有哪些', expect: { kind: 'lookup', filter: { supplier: '火炬' } } },
  { say: 'my recent purchase orders pls', expect: { kind: 'lookup', filter: 'mine' } },
  { say: '你好呀', expect: { kind: 'greeting' } },
  { say: 'hey there', expect: { kind: 'greeting' } },
  { say: '你能干啥', expect: { kind: 'help' } },
  { say: 'what can u do', expect: { kind: 'help' } },
  { before: [{ say: '从博世买200个F7TC', decide: 'approve' }], say: '再订150个', expect: order('博世', 'F7TC', 150) },
  {
    before: [{ say: 'buy 100 BP-125F from Delphi', decide: 'approve' }],
    say: 'make it 120',
    expect: { kind: 'update', order: 'previous', quantity: 120 },
  },
  {
    before: [{ say: '给电装下300只D8TC', decide: 'approve' }],
    say: '把刚才那单取消掉',
    expect: { kind: 'cancel', order: 'previous' },
  },
  {
    before: [{ say: 'compare prices of brake pads', decide: 'approve' }],
    say: '那链条呢',
    expect: analysis(undefined, '链条'),
  },
  { before: [{ say: '给火炬下 200 只 A7TC', decide: 'approve' }], say: '换成冠军', expect: order('冠军', 'A7TC', 200) },
  {
    before: [{ say: 'order 300 D8TC from Bosch', decide: 'approve' }],
    say: '备注改为加急',
    expect: { kind: 'update', order: 'previous', note: '加急' },
  },

  { say: '早上好，今天有什么需要注意的库存吗', expect: inventory },
  { say: 'Morning! any low stock?', expect: inventory },
  { say: '博世和火炬的刹车片哪个便宜', expect: { kind: 'analysis', model: 'BP-125F', suppliers: 2 } },
  { say: '看下轮胎这半年的价格变化', expect: analysis(undefined, '胎') },
  { say: 'HF112 price trend', expect: analysis('OF-HF112') },
  { say: '给火炬下200只D8TC，备注：春节前备货', expect: order('火炬', 'D8TC', 200) },
  { say: '采购两千只火炬F7TC', expect: order('火炬', 'F7TC', 2000) },
  { say: '德尔福 点火线圈 IC125 一百个', expect: order('德尔福', 'IC-125', 100) },
  {
    say: 'Order 100 ignition coils IC-125 from Bosch, deliver next Wednesday',
    expect: order('博世', 'IC-125', 100, 'date'),
  },
  { say: 'buy 1,000 A7TC from Champion', expect: order('冠军', 'A7TC', 1000) },
  { say: '给马勒下单 AF125 空滤 一百五十个', expect: order('马勒', 'AF-125', 150) },
  { say: '帮我看看 {pending} 这个订单', expect: { kind: 'status', order: 'pending' } },
  { say: '取消订单{pending}', expect: { kind: 'cancel', order: 'pending' } },
  { say: '把{pending}的数量改成500', expect: { kind: 'update', order: 'pending', quantity: 500 } },
  { say: 'cancel {draft} please', expect: { kind: 'cancel', order: 'draft' } },
  { say: '冠军的单子都有哪些', expect: { kind: 'lookup', filter: { supplier: '冠军' } } },
  { say: '谢谢', expect: { kind: 'greeting' } },
  { say: '你都会些什么呀', expect: { kind: 'help' } },
  {
    before: [{ say: '给博世下200个F7TC火花塞的采购单', decide: 'approve' }],
    say: 'another 300 please',
    expect: order('博世', 'F7TC', 300),
  },
  {
    before: [{ say: '给博世下200个F7TC火花塞的采购单', decide: 'approve' }],
    say: '数量改成二百五',
    expect: { kind: 'update', order: 'previous', quantity: 250 },
  },
  {
    before: [{ say: '对比一下各家点火线圈的价格', decide: 'approve' }],
    say: 'and tyres?',
    expect: analysis(undefined, '胎'),
  },
  {
    before: [{ say: 'order 200 F7TC from NGK', decide: 'approve' }],
    say: 'push it to next friday',
    expect: { kind: 'update', order: 'previous', due: 'friday' },
  },
  // Numbers in words, shortage questions, addressing the assistant by name, and more follow-ups
  { say: '跟火炬要三百条428H-118L的链条，下礼拜五之前要', expect: order('火炬', '428H-118L', 300, 'friday') },
  { say: 'Could you get 150 air filters AF-125 from Denso for me?', expect: order('电装', 'AF-125', 150) },
  { say: '给恒久发个采购单，520-120L 油封链条 四十条', expect: order('恒久', '520-120L', 40) },
  { say: 'MAHLE HF112 ×500', expect: order('马勒', 'OF-HF112', 500) },
  { say: '博世刹车片BP-125F 一百副，12/20前交', expect: order('博世', 'BP-125F', 100, 'date') },
  { say: '订正新的2.75-18轮胎，30条', expect: order('正新', '2.75-18', 30) },
  { say: 'buy 100 ignitoin coils IC-125 from Delphi', expect: order('德尔福', 'IC-125', 100) },
  { say: 'please procure two hundred fifty A7TC from Bosch', expect: order('博世', 'A7TC', 250) },
  { say: '请问哪家的正时链条最划算', expect: analysis('25H-90L') },
  { say: 'battery price comparison', expect: analysis('YTX7L-BS') },
  { say: 'CR7HIX 各家价格', expect: analysis('CR7HIX') },
  { say: '给我看看机油滤清器的价格趋势图', expect: analysis('OF-HF204') },
  { say: '仓库里哪些东西要补了', expect: inventory },
  { say: 'are we short on anything?', expect: inventory },
  { say: '最近下的单子有哪些', expect: { kind: 'lookup', filter: 'any' } },
  { say: 'orders with Brembo', expect: { kind: 'lookup', filter: { supplier: '布雷博' } } },
  { say: 'which POs are still pending approval?', expect: { kind: 'lookup', filter: 'pending' } },
  { say: '{pending}什么进度', expect: { kind: 'status', order: 'pending' } },
  { say: '帮我撤销 {pending}', expect: { kind: 'cancel', order: 'pending' } },
  { say: 'Hello Procura!', expect: { kind: 'greeting' } },
  { say: '你是干嘛的', expect: { kind: 'help' } },
  {
    before: [{ say: '给火炬下 200 只 A7TC', decide: 'approve' }],
    say: '再来一单一样的',
    expect: order('火炬', 'A7TC', 200),
  },
  {
    before: [{ say: 'order 300 D8TC from Bosch', decide: 'approve' }],
    say: '数量减到200',
    expect: { kind: 'update', order: 'previous', quantity: 200 },
  },
  {
    before: [{ say: '比较一下各家刹车片的价格', decide: 'approve' }],
    say: '蓄电池也比一下',
    expect: analysis('YTX7L-BS'),
  },
  {
    before: [{ say: '从博世买200个火花塞', decide: 'approve', pick: 'F7TC' }],
    say: '再来100个',
    expect: order('博世', 'F7TC', 100),
  },
  // Colloquial orders, three-way comparisons, mixed digits and words, follow-ups after a rejection
  { say: '老样子，冠军的F7TC再拿五百只', expect: order('冠军', 'F7TC', 500) },
  { say: '帮忙找瓦尔塔订三十个YTX7L-BS电瓶，月底要', expect: order('瓦尔塔', 'YTX7L-BS', 30, 'date') },
  { say: 'Denso IC-125 coils, qty 75', expect: order('电装', 'IC-125', 75) },
  { say: '博世的空气滤芯AF-125，采购数量：120', expect: order('博世', 'AF-125', 120) },
  { say: '从NGK进三百只CR7HIX铱金火花塞', expect: order('NGK', 'CR7HIX', 300) },
  { say: '朝阳 90/90-18 ×25条', expect: order('朝阳', '90/90-18', 25) },
  { say: 'order 3 hundred F7TC frm Champion', expect: order('冠军', 'F7TC', 300) },
  {
    say: '对比一下火炬、恒久、大同三家的428H-118L链条价格',
    expect: { kind: 'analysis', model: '428H-118L', suppliers: 3 },
  },
  { say: 'HF204 机滤 哪家性价比高', expect: analysis('OF-HF204') },
  { say: '帮我分析下点火线圈的采购价格', expect: analysis('IC-125') },
  { say: '最近哪些配件库存偏低', expect: inventory },
  { say: 'low inventory report', expect: inventory },
  { say: '我提交的采购单', expect: { kind: 'lookup', filter: 'mine' } },
  { say: '大同链条的订单情况', expect: { kind: 'lookup', filter: { supplier: '大同' } } },
  {
    before: [{ say: '给德尔福下 100 副 BP-125F', decide: 'approve' }],
    say: 'cancel it',
    expect: { kind: 'cancel', order: 'previous' },
  },
  {
    before: [{ say: '给德尔福下 100 副 BP-125F', decide: 'approve' }],
    say: '交期改到下周五',
    expect: { kind: 'update', order: 'previous', due: 'friday' },
  },
  {
    before: [{ say: '给火炬下 200 只 A7TC', decide: 'reject' }],
    say: '那换成电装吧',
    expect: order('电装', 'A7TC', 200),
  },
];
