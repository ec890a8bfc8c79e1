/**
 * One realistic, schema-valid call per AntV chart tool (procurement data, Chinese labels). The agent shows the
 * matching one when a config is wrong; tests, gallery and benchmark draw all of them.
 */
export const CHART_EXAMPLES: Readonly<Record<string, Record<string, unknown>>> = {
  generate_area_chart: {
    title: '火花塞月度采购金额（万元）',
    data: [
      ['1月', 32, '博世'],
      ['2月', 35, '博世'],
      ['3月', 41, '博世'],
      ['4月', 38, '博世'],
      ['5月', 44, '博世'],
      ['6月', 47, '博世'],
      ['1月', 21, '电装'],
      ['2月', 24, '电装'],
      ['3月', 22, '电装'],
      ['4月', 27, '电装'],
      ['5月', 30, '电装'],
      ['6月', 29, '电装'],
    ].map(([time, value, group]) => ({ time, value, group })),
    stack: true,
    axisXTitle: '月份',
    axisYTitle: '金额（万元）',
  },
  generate_bar_chart: {
    title: '供应商交货准时率',
    data: [
      { category: '博世（苏州）', value: 97.5 },
      { category: '电装（天津）', value: 95.2 },
      { category: '德尔福（上海）', value: 91.8 },
      { category: '株洲湘火炬', value: 88.4 },
      { category: '南京恒瑞', value: 85.1 },
    ],
    axisXTitle: '准时率（%）',
  },
  generate_boxplot_chart: {
    title: '各供应商 F7TC 报价分布（元）',
    data: [
      ...[12.1, 12.4, 12.8, 13.0, 12.6, 13.5, 12.2].map((value) => ({ category: '博世', value })),
      ...[11.2, 11.8, 11.5, 12.0, 11.9, 11.4, 13.9].map((value) => ({ category: '电装', value })),
      ...[10.5, 10.9, 11.3, 10.7, 11.0, 10.8, 10.6].map((value) => ({ category: '湘火炬', value })),
    ],
    axisYTitle: '单价（元）',
  },
  generate_column_chart: {
    title: '季度采购量对比',
    data: [
      ['一季度', 1200, '火花塞'],
      ['二季度', 1350, '火花塞'],
      ['三季度', 1100, '火花塞'],
      ['一季度', 800, '刹车片'],
      ['二季度', 950, '刹车片'],
      ['三季度', 1020, '刹车片'],
    ].map(([category, value, group]) => ({ category, value, group })),
    group: true,
    axisYTitle: '数量（件）',
  },
  generate_district_map: {
    title: '江苏供应商分布',
    data: {
      name: '江苏省',
      showAllSubdistricts: true,
      dataLabel: '供应商数量',
      dataType: 'number',
      dataValueUnit: '家',
      colors: ['#F0884D'],
      subdistricts: [
        { name: '苏州市', dataValue: '5' },
        { name: '南京市', dataValue: '3' },
        { name: '无锡市', dataValue: '2' },
        { name: '常州市', dataValue: '1' },
      ],
    },
    width: 1000,
    height: 800,
  },
  generate_dual_axes_chart: {
    title: '采购金额与平均单价',
    categories: ['1月', '2月', '3月', '4月', '5月', '6月'],
    series: [
      { type: 'column', data: [53, 59, 63, 65, 74, 76], axisYTitle: '采购金额（万元）' },
      { type: 'line', data: [12.4, 12.1, 12.6, 12.3, 11.9, 11.8], axisYTitle: '平均单价（元）' },
    ],
    axisXTitle: '月份',
  },
  generate_fishbone_diagram: {
    data: {
      name: '火花塞到货延误',
      children: [
        { name: '供应商', children: [{ name: '产能不足' }, { name: '原材料短缺' }] },
        { name: '物流', children: [{ name: '运输路线变更' }, { name: '报关延迟' }] },
        { name: '采购流程', children: [{ name: '审批周期长' }, { name: '需求预测偏差' }] },
        { name: '质量', children: [{ name: '来料检验不合格' }] },
      ],
    },
  },
  generate_flow_diagram: {
    data: {
      nodes: [
        { name: '需求提报' },
        { name: '询价比价' },
        { name: '主管审批' },
        { name: '下单' },
        { name: '到货验收' },
        { name: '退回修改' },
      ],
      edges: [
        { source: '需求提报', target: '询价比价' },
        { source: '询价比价', target: '主管审批' },
        { source: '主管审批', target: '下单', name: '同意' },
        { source: '主管审批', target: '退回修改', name: '驳回' },
        { source: '退回修改', target: '询价比价' },
        { source: '下单', target: '到货验收' },
      ],
    },
  },
  generate_funnel_chart: {
    title: '供应商准入漏斗',
    data: [
      { category: '潜在供应商', value: 120 },
      { category: '资质审核', value: 64 },
      { category: '样品测试', value: 30 },
      { category: '现场审核', value: 18 },
      { category: '合格供应商', value: 12 },
    ],
  },
  generate_histogram_chart: {
    title: '火花塞网页报价分布',
    data: [10.5, 10.8, 11.2, 11.4, 11.5, 11.9, 12.0, 12.1, 12.3, 12.4, 12.6, 12.8, 13.0, 13.5, 13.9, 14.2, 12.2, 11.8],
    binNumber: 6,
    axisXTitle: '单价（元）',
    axisYTitle: '报价数',
  },
  generate_line_chart: {
    title: 'F7TC 火花塞价格走势',
    data: [
      ['2026-01', 12.8, '博世'],
      ['2026-02', 12.6, '博世'],
      ['2026-03', 12.9, '博世'],
      ['2026-04', 12.4, '博世'],
      ['2026-01', 11.9, '电装'],
      ['2026-02', 12.1, '电装'],
      ['2026-03', 11.7, '电装'],
      ['2026-04', 11.5, '电装'],
    ].map(([time, value, group]) => ({ time, value, group })),
    axisYTitle: '单价（元）',
  },
  generate_liquid_chart: { title: '年度采购预算执行率', percent: 0.68 },
  generate_mind_map: {
    data: {
      name: '火花塞采购策略',
      children: [
        { name: '成本', children: [{ name: '年度框架协议' }, { name: '阶梯价格' }] },
        { name: '质量', children: [{ name: '来料检验' }, { name: '供应商审核' }] },
        { name: '交付', children: [{ name: '安全库存' }, { name: '双供应商' }] },
      ],
    },
  },
  generate_network_graph: {
    data: {
      nodes: [
        { name: '博世' },
        { name: '电装' },
        { name: '德尔福' },
        { name: '火花塞' },
        { name: '点火线圈' },
        { name: '刹车片' },
      ],
      edges: [
        { source: '博世', target: '火花塞', name: '供货' },
        { source: '电装', target: '火花塞', name: '供货' },
        { source: '博世', target: '点火线圈', name: '供货' },
        { source: '德尔福', target: '点火线圈', name: '供货' },
        { source: '德尔福', target: '刹车片', name: '供货' },
      ],
    },
  },
  generate_organization_chart: {
    data: {
      name: '采购部',
      description: '部长 王磊',
      children: [
        {
          name: '战略采购组',
          description: '组长 李娜',
          children: [
            { name: '电气件', description: '张强' },
            { name: '制动件', description: '刘洋' },
          ],
        },
        { name: '执行采购组', description: '组长 陈静' },
        { name: '供应商质量组', description: '组长 赵敏' },
      ],
    },
    orient: 'vertical',
  },
  generate_path_map: {
    title: '火花塞入厂物流路线',
    data: [{ data: ['苏州市', '无锡市', '常州市', '南京市'] }, { data: ['天津市', '济南市', '南京市'] }],
    width: 1000,
    height: 800,
  },
  generate_pie_chart: {
    title: '火花塞采购份额',
    data: [
      { category: '博世', value: 45 },
      { category: '电装', value: 30 },
      { category: '德尔福', value: 15 },
      { category: '其他', value: 10 },
    ],
    innerRadius: 0.6,
  },
  generate_pin_map: {
    title: '主要供应商所在城市',
    data: ['苏州市', '天津市', '上海市', '株洲市', '南京市', '杭州市', '厦门市', '广州市'],
    width: 1000,
    height: 800,
  },
  generate_radar_chart: {
    title: '供应商综合评分',
    data: ['价格', '质量', '交付', '服务', '技术'].flatMap((name, i) => [
      { name, value: [82, 95, 93, 88, 96][i], group: '博世' },
      { name, value: [88, 90, 91, 85, 89][i], group: '电装' },
    ]),
  },
  generate_sankey_chart: {
    title: '采购资金流向',
    data: [
      { source: '年度预算', target: '电气件', value: 420 },
      { source: '年度预算', target: '制动件', value: 260 },
      { source: '电气件', target: '博世', value: 250 },
      { source: '电气件', target: '电装', value: 170 },
      { source: '制动件', target: '德尔福', value: 160 },
      { source: '制动件', target: '湘火炬', value: 100 },
    ],
    nodeAlign: 'justify',
  },
  generate_scatter_chart: {
    title: '单价与交货周期',
    data: [
      [12.8, 7, '博世'],
      [12.4, 9, '博世'],
      [13.1, 6, '博世'],
      [11.6, 12, '电装'],
      [11.9, 10, '电装'],
      [11.2, 14, '电装'],
    ].map(([x, y, group]) => ({ x, y, group })),
    axisXTitle: '单价（元）',
    axisYTitle: '交货周期（天）',
  },
  generate_treemap_chart: {
    title: '采购品类金额构成（万元）',
    data: [
      {
        name: '电气件',
        value: 420,
        children: [
          { name: '火花塞', value: 250 },
          { name: '点火线圈', value: 170 },
        ],
      },
      {
        name: '制动件',
        value: 260,
        children: [
          { name: '刹车片', value: 180 },
          { name: '刹车盘', value: 80 },
        ],
      },
      { name: '滤清器', value: 120 },
    ],
  },
  generate_venn_chart: {
    title: '供应商覆盖品类',
    data: [
      { sets: ['火花塞'], value: 12, label: '火花塞供应商' },
      { sets: ['点火线圈'], value: 8, label: '点火线圈供应商' },
      { sets: ['火花塞', '点火线圈'], value: 4, label: '两者皆供' },
    ],
  },
  generate_violin_chart: {
    title: '各渠道报价分布',
    data: [
      ...[12.1, 12.4, 12.8, 13.0, 12.6, 13.5, 12.2, 12.9].map((value) => ({ category: '官网', value })),
      ...[11.2, 11.8, 11.5, 12.0, 11.9, 11.4, 12.3, 11.7].map((value) => ({ category: '经销商', value })),
    ],
    axisYTitle: '单价（元）',
  },
  generate_waterfall_chart: {
    title: '年度采购成本变化（万元）',
    data: [
      { category: '去年成本', value: 680 },
      { category: '原材料涨价', value: 45 },
      { category: '谈判降价', value: -62 },
      { category: '物流优化', value: -18 },
      { category: '今年成本', isTotal: true },
    ],
  },
  generate_word_cloud_chart: {
    title: '供应商评价关键词',
    data: [
      ['交期准时', 40],
      ['价格合理', 34],
      ['质量稳定', 30],
      ['响应快', 22],
      ['包装规范', 15],
      ['售后好', 14],
      ['认证齐全', 12],
      ['账期灵活', 10],
      ['技术支持', 9],
      ['样品及时', 7],
    ].map(([text, value]) => ({ text, value })),
  },
  generate_spreadsheet: {
    data: [
      { 供应商: '博世', 品类: '火花塞', 单价: 12.8, 数量: 200 },
      { 供应商: '电装', 品类: '火花塞', 单价: 11.9, 数量: 150 },
      { 供应商: '德尔福', 品类: '点火线圈', 单价: 86.5, 数量: 40 },
      { 供应商: '湘火炬', 品类: '火花塞', 单价: 10.6, 数量: 300 },
    ],
  },
};
