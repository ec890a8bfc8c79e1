/**
 * The demo company's master data: who supplies what, at which list price.
 * The ERP seeds from it, and the simulated supplier web shops publish prices derived from it,
 * so both sides talk about the same suppliers and parts.
 */

export interface CategoryInfo {
  code: string;
  nameZh: string;
  nameEn: string;
  /** Trade words buyers use for the category (机滤 for 机油滤清器), found by the part search like its name. */
  synonymsZh: readonly string[];
  synonymsEn: readonly string[];
}

export const PART_CATEGORIES: readonly CategoryInfo[] = [
  { code: 'spark_plug', nameZh: '火花塞', nameEn: 'Spark plug', synonymsZh: ['火嘴'], synonymsEn: ['sparkplug'] },
  {
    code: 'brake_pad',
    nameZh: '刹车片',
    nameEn: 'Brake pad',
    synonymsZh: ['刹车皮', '制动片', '刹车块'],
    synonymsEn: ['brakepad'],
  },
  { code: 'oil_filter', nameZh: '机油滤清器', nameEn: 'Oil filter', synonymsZh: ['机滤'], synonymsEn: [] },
  { code: 'air_filter', nameZh: '空气滤清器', nameEn: 'Air filter', synonymsZh: ['空滤'], synonymsEn: [] },
  { code: 'chain', nameZh: '链条', nameEn: 'Drive chain', synonymsZh: ['链子', '链传动'], synonymsEn: [] },
  { code: 'tyre', nameZh: '轮胎', nameEn: 'Tyre', synonymsZh: ['车胎', '外胎', '胎子'], synonymsEn: ['tire'] },
  { code: 'battery', nameZh: '蓄电池', nameEn: 'Battery', synonymsZh: ['电瓶', '电池'], synonymsEn: [] },
  { code: 'ignition_coil', nameZh: '点火线圈', nameEn: 'Ignition coil', synonymsZh: ['高压包'], synonymsEn: [] },
];

export interface DemoSupplier {
  /** Stable short key; also the path prefix of the supplier's web shop (`/bosch/`). */
  key: string;
  nameZh: string;
  nameEn: string;
  contactName: string;
  contactPhone: string;
  contactEmail: string;
  city: string;
  province: string;
  rating: number;
  leadTimeDays: number;
  paymentTerms: string;
  /** Multiplier on the product line's base price: premium brands sell higher. */
  priceFactor: number;
  projects: readonly string[];
}

export const DEMO_PROJECTS = [
  { id: 'P001', nameZh: '摩托车总装厂', nameEn: 'Motorcycle assembly plant' },
  { id: 'P002', nameZh: '汽车配件事业部', nameEn: 'Automotive parts division' },
] as const;

export const DEMO_SUPPLIERS: readonly DemoSupplier[] = [
  {
    key: 'bosch',
    nameZh: '博世',
    nameEn: 'Bosch',
    contactName: '王磊',
    contactPhone: '0512-6289-1000',
    contactEmail: 'sales@bosch-auto.example',
    city: '苏州',
    province: '江苏',
    rating: 4.8,
    leadTimeDays: 14,
    paymentTerms: '月结60天',
    priceFactor: 1.18,
    projects: ['P001', 'P002'],
  },
  {
    key: 'denso',
    nameZh: '电装',
    nameEn: 'Denso',
    contactName: '李娜',
    contactPhone: '022-2388-6600',
    contactEmail: 'order@denso-tj.example',
    city: '天津',
    province: '天津',
    rating: 4.7,
    leadTimeDays: 12,
    paymentTerms: '月结45天',
    priceFactor: 1.12,
    projects: ['P001', 'P002'],
  },
  {
    key: 'ngk',
    nameZh: 'NGK 日本特殊陶业',
    nameEn: 'NGK Spark Plug',
    contactName: '陈刚',
    contactPhone: '021-5046-2200',
    contactEmail: 'cn-sales@ngk.example',
    city: '上海',
    province: '上海',
    rating: 4.9,
    leadTimeDays: 18,
    paymentTerms: '月结60天',
    priceFactor: 1.22,
    projects: ['P001'],
  },
  {
    key: 'delphi',
    nameZh: '德尔福',
    nameEn: 'Delphi',
    contactName: '赵敏',
    contactPhone: '0512-6761-3300',
    contactEmail: 'parts@delphi-sz.example',
    city: '苏州',
    province: '江苏',
    rating: 4.4,
    leadTimeDays: 16,
    paymentTerms: '月结30天',
    priceFactor: 1.05,
    projects: ['P001', 'P002'],
  },
  {
    key: 'champion',
    nameZh: '冠军',
    nameEn: 'Champion',
    contactName: '孙浩',
    contactPhone: '021-6485-7700',
    contactEmail: 'champion@fm-asia.example',
    city: '上海',
    province: '上海',
    rating: 4.2,
    leadTimeDays: 10,
    paymentTerms: '月结30天',
    priceFactor: 0.98,
    projects: ['P001'],
  },
  {
    key: 'torch',
    nameZh: '火炬',
    nameEn: 'Torch',
    contactName: '周强',
    contactPhone: '0731-2850-1188',
    contactEmail: 'sales@torch-zz.example',
    city: '株洲',
    province: '湖南',
    rating: 4.1,
    leadTimeDays: 7,
    paymentTerms: '款到发货',
    priceFactor: 0.72,
    projects: ['P001'],
  },
  {
    key: 'mahle',
    nameZh: '马勒',
    nameEn: 'MAHLE',
    contactName: '吴静',
    contactPhone: '021-3861-4500',
    contactEmail: 'filters@mahle-sh.example',
    city: '上海',
    province: '上海',
    rating: 4.6,
    leadTimeDays: 15,
    paymentTerms: '月结60天',
    priceFactor: 1.1,
    projects: ['P001', 'P002'],
  },
  {
    key: 'brembo',
    nameZh: '布雷博',
    nameEn: 'Brembo',
    contactName: '郑凯',
    contactPhone: '025-5209-8800',
    contactEmail: 'oem@brembo-nj.example',
    city: '南京',
    province: '江苏',
    rating: 4.8,
    leadTimeDays: 21,
    paymentTerms: '月结60天',
    priceFactor: 1.35,
    projects: ['P001', 'P002'],
  },
  {
    key: 'chaoyang',
    nameZh: '朝阳轮胎',
    nameEn: 'Chaoyang Tyres',
    contactName: '钱伟',
    contactPhone: '0571-8669-2300',
    contactEmail: 'moto@chaoyang.example',
    city: '杭州',
    province: '浙江',
    rating: 4.3,
    leadTimeDays: 9,
    paymentTerms: '月结30天',
    priceFactor: 0.85,
    projects: ['P001'],
  },
  {
    key: 'cst',
    nameZh: '正新轮胎',
    nameEn: 'CST Tires',
    contactName: '林芳',
    contactPhone: '0592-6203-1500',
    contactEmail: 'sales@cst-xm.example',
    city: '厦门',
    province: '福建',
    rating: 4.5,
    leadTimeDays: 11,
    paymentTerms: '月结45天',
    priceFactor: 0.95,
    projects: ['P001'],
  },
  {
    key: 'did',
    nameZh: '大同链条',
    nameEn: 'DID Chain',
    contactName: '黄勇',
    contactPhone: '0510-8521-6600',
    contactEmail: 'chain@did-wx.example',
    city: '无锡',
    province: '江苏',
    rating: 4.6,
    leadTimeDays: 20,
    paymentTerms: '月结45天',
    priceFactor: 1.15,
    projects: ['P001'],
  },
  {
    key: 'hengjiu',
    nameZh: '恒久链传动',
    nameEn: 'Hengjiu Chain',
    contactName: '何明',
    contactPhone: '0519-8831-2700',
    contactEmail: 'sales@hengjiu.example',
    city: '常州',
    province: '江苏',
    rating: 4.0,
    leadTimeDays: 8,
    paymentTerms: '款到发货',
    priceFactor: 0.78,
    projects: ['P001'],
  },
  {
    key: 'varta',
    nameZh: '瓦尔塔',
    nameEn: 'VARTA',
    contactName: '罗丹',
    contactPhone: '020-3705-4400',
    contactEmail: 'oem@varta-gz.example',
    city: '广州',
    province: '广东',
    rating: 4.5,
    leadTimeDays: 13,
    paymentTerms: '月结30天',
    priceFactor: 1.08,
    projects: ['P001', 'P002'],
  },
];

export interface ProductLine {
  /** Industry designation shared by every supplier's equivalent part (cross-reference). */
  model: string;
  category: string;
  nameZh: string;
  nameEn: string;
  spec: string;
  unit: string;
  basePrice: number;
  moq: number;
  /** Supplier keys that carry this line. */
  suppliers: readonly string[];
  projects: readonly string[];
}

const plugSuppliers = ['bosch', 'denso', 'ngk', 'delphi', 'champion', 'torch'] as const;

export const PRODUCT_LINES: readonly ProductLine[] = [
  {
    model: 'F7TC',
    category: 'spark_plug',
    nameZh: '摩托车火花塞 F7TC',
    nameEn: 'Motorcycle spark plug F7TC',
    spec: 'M14×1.25, 热值7, 镍合金电极',
    unit: '只',
    basePrice: 12.5,
    moq: 100,
    suppliers: plugSuppliers,
    projects: ['P001'],
  },
  {
    model: 'D8TC',
    category: 'spark_plug',
    nameZh: '摩托车火花塞 D8TC',
    nameEn: 'Motorcycle spark plug D8TC',
    spec: 'M12×1.25, 热值8, 镍合金电极',
    unit: '只',
    basePrice: 13.8,
    moq: 100,
    suppliers: plugSuppliers,
    projects: ['P001'],
  },
  {
    model: 'A7TC',
    category: 'spark_plug',
    nameZh: '摩托车火花塞 A7TC',
    nameEn: 'Motorcycle spark plug A7TC',
    spec: 'M10×1.0, 热值7, 适用弯梁车',
    unit: '只',
    basePrice: 11.2,
    moq: 100,
    suppliers: plugSuppliers,
    projects: ['P001'],
  },
  {
    model: 'CR7HIX',
    category: 'spark_plug',
    nameZh: '铱金火花塞 CR7HIX',
    nameEn: 'Iridium spark plug CR7HIX',
    spec: 'M10×1.0, 铱金中心电极, 踏板车',
    unit: '只',
    basePrice: 38.0,
    moq: 50,
    suppliers: ['bosch', 'denso', 'ngk', 'champion'],
    projects: ['P001'],
  },
  {
    model: 'FR7DC',
    category: 'spark_plug',
    nameZh: '汽车火花塞 FR7DC',
    nameEn: 'Car spark plug FR7DC',
    spec: 'M14×1.25, 带电阻, 双侧电极',
    unit: '只',
    basePrice: 16.5,
    moq: 100,
    suppliers: ['bosch', 'denso', 'delphi'],
    projects: ['P002'],
  },
  {
    model: 'BP-125F',
    category: 'brake_pad',
    nameZh: '摩托车前刹车片 125cc',
    nameEn: 'Motorcycle front brake pad 125cc',
    spec: '半金属配方, 盘式',
    unit: '副',
    basePrice: 28.0,
    moq: 50,
    suppliers: ['bosch', 'brembo', 'delphi', 'torch'],
    projects: ['P001'],
  },
  {
    model: 'BP-150R',
    category: 'brake_pad',
    nameZh: '摩托车后刹车片 150cc',
    nameEn: 'Motorcycle rear brake pad 150cc',
    spec: '陶瓷配方, 低噪音',
    unit: '副',
    basePrice: 32.0,
    moq: 50,
    suppliers: ['bosch', 'brembo', 'delphi'],
    projects: ['P001'],
  },
  {
    model: 'BP-CAR-D1',
    category: 'brake_pad',
    nameZh: '轿车前刹车片 D1',
    nameEn: 'Car front brake pad D1',
    spec: '陶瓷配方, 带报警线',
    unit: '套',
    basePrice: 185.0,
    moq: 20,
    suppliers: ['bosch', 'brembo', 'delphi'],
    projects: ['P002'],
  },
  {
    model: 'OF-HF204',
    category: 'oil_filter',
    nameZh: '摩托车机油滤清器 HF204',
    nameEn: 'Motorcycle oil filter HF204',
    spec: 'M20×1.5 螺纹, 旋装式',
    unit: '个',
    basePrice: 22.0,
    moq: 100,
    suppliers: ['bosch', 'mahle', 'denso', 'champion'],
    projects: ['P001'],
  },
  {
    model: 'OF-HF112',
    category: 'oil_filter',
    nameZh: '机油滤芯 HF112',
    nameEn: 'Oil filter cartridge HF112',
    spec: '纸质滤芯, 内置式',
    unit: '个',
    basePrice: 9.5,
    moq: 200,
    suppliers: ['mahle', 'champion', 'torch'],
    projects: ['P001'],
  },
  {
    model: 'OF-W712',
    category: 'oil_filter',
    nameZh: '轿车机油滤清器 W712',
    nameEn: 'Car oil filter W712',
    spec: '3/4-16 UNF, 旋装式',
    unit: '个',
    basePrice: 35.0,
    moq: 50,
    suppliers: ['bosch', 'mahle', 'delphi'],
    projects: ['P002'],
  },
  {
    model: 'AF-125',
    category: 'air_filter',
    nameZh: '摩托车空气滤清器 125',
    nameEn: 'Motorcycle air filter 125',
    spec: '海绵+纸质双层',
    unit: '个',
    basePrice: 18.0,
    moq: 100,
    suppliers: ['bosch', 'mahle', 'denso'],
    projects: ['P001'],
  },
  {
    model: '428H-118L',
    category: 'chain',
    nameZh: '摩托车链条 428H-118L',
    nameEn: 'Motorcycle chain 428H-118L',
    spec: '加厚型, 118节',
    unit: '条',
    basePrice: 45.0,
    moq: 50,
    suppliers: ['did', 'hengjiu', 'torch'],
    projects: ['P001'],
  },
  {
    model: '520-120L',
    category: 'chain',
    nameZh: '油封链条 520-120L',
    nameEn: 'O-ring chain 520-120L',
    spec: 'O型圈密封, 120节',
    unit: '条',
    basePrice: 168.0,
    moq: 20,
    suppliers: ['did', 'hengjiu'],
    projects: ['P001'],
  },
  {
    model: '25H-90L',
    category: 'chain',
    nameZh: '正时链条 25H-90L',
    nameEn: 'Timing chain 25H-90L',
    spec: '发动机正时用, 90节',
    unit: '条',
    basePrice: 26.0,
    moq: 100,
    suppliers: ['did', 'hengjiu', 'torch'],
    projects: ['P001'],
  },
  {
    model: '2.75-18',
    category: 'tyre',
    nameZh: '摩托车轮胎 2.75-18',
    nameEn: 'Motorcycle tyre 2.75-18',
    spec: '有内胎, 6层级',
    unit: '条',
    basePrice: 95.0,
    moq: 20,
    suppliers: ['chaoyang', 'cst'],
    projects: ['P001'],
  },
  {
    model: '90/90-18',
    category: 'tyre',
    nameZh: '摩托车真空胎 90/90-18',
    nameEn: 'Motorcycle tubeless tyre 90/90-18',
    spec: '真空胎, 街道花纹',
    unit: '条',
    basePrice: 138.0,
    moq: 20,
    suppliers: ['chaoyang', 'cst'],
    projects: ['P001'],
  },
  {
    model: '3.00-10',
    category: 'tyre',
    nameZh: '踏板车轮胎 3.00-10',
    nameEn: 'Scooter tyre 3.00-10',
    spec: '真空胎, 踏板车专用',
    unit: '条',
    basePrice: 82.0,
    moq: 20,
    suppliers: ['chaoyang', 'cst'],
    projects: ['P001'],
  },
  {
    model: 'YTX7L-BS',
    category: 'battery',
    nameZh: '摩托车蓄电池 YTX7L-BS',
    nameEn: 'Motorcycle battery YTX7L-BS',
    spec: '12V 6Ah, 免维护',
    unit: '块',
    basePrice: 120.0,
    moq: 20,
    suppliers: ['varta', 'bosch', 'torch'],
    projects: ['P001'],
  },
  {
    model: 'L2-400',
    category: 'battery',
    nameZh: '汽车蓄电池 L2-400',
    nameEn: 'Car battery L2-400',
    spec: '12V 60Ah, AGM',
    unit: '块',
    basePrice: 560.0,
    moq: 10,
    suppliers: ['varta', 'bosch'],
    projects: ['P002'],
  },
  {
    model: 'IC-125',
    category: 'ignition_coil',
    nameZh: '摩托车点火线圈 125',
    nameEn: 'Motorcycle ignition coil 125',
    spec: '高压包, 带帽',
    unit: '个',
    basePrice: 42.0,
    moq: 50,
    suppliers: ['denso', 'bosch', 'delphi', 'torch'],
    projects: ['P001'],
  },
];

/** Two-letter code prefix per supplier: part codes read like supplier SKUs (`BS-F7TC`). */
export const SUPPLIER_CODE_PREFIX: Record<string, string> = {
  bosch: 'BS',
  denso: 'DN',
  ngk: 'NG',
  delphi: 'DP',
  champion: 'CH',
  torch: 'TC',
  mahle: 'MH',
  brembo: 'BR',
  chaoyang: 'CY',
  cst: 'CS',
  did: 'DD',
  hengjiu: 'HJ',
  varta: 'VT',
};

/**
 * Deterministic per-supplier spread around the supplier's factor (±6 %), so equal
 * lines differ by supplier but every run of the seed gives the same list prices.
 */
export function listPrice(line: ProductLine, supplier: DemoSupplier): number {
  let h = 0;
  for (const ch of `${line.model}/${supplier.key}`) h = (h * 31 + ch.charCodeAt(0)) >>> 0;
  const spread = (h % 1200) / 10000 - 0.06;
  return Math.round(line.basePrice * supplier.priceFactor * (1 + spread) * 100) / 100;
}

/** One supplier's offer of a product line in a project: the line's own facts, the supplier's code and price. */
export interface DemoPart
  extends Pick<ProductLine, 'model' | 'category' | 'nameZh' | 'nameEn' | 'spec' | 'unit' | 'moq'> {
  projectId: string;
  supplierKey: string;
  code: string;
  unitPrice: number;
}

/**
 * The master data an ERP is seeded with: suppliers, categories and product lines. The demo company's is below;
 * another trade's seeds the same way (the demo projects and users stay).
 */
export interface Catalogue {
  categories: readonly CategoryInfo[];
  suppliers: readonly DemoSupplier[];
  lines: readonly ProductLine[];
  /** Part-code prefix per supplier key (`BS` makes `BS-F7TC`). */
  codePrefix: Readonly<Record<string, string>>;
  /** Category-wide price drift over the year (0.06: up 6 %), so trend charts show something real. */
  yearlyDrift: Readonly<Record<string, number>>;
}

export const DEMO_CATALOGUE: Catalogue = {
  categories: PART_CATEGORIES,
  suppliers: DEMO_SUPPLIERS,
  lines: PRODUCT_LINES,
  codePrefix: SUPPLIER_CODE_PREFIX,
  yearlyDrift: { spark_plug: 0.06, brake_pad: 0.03, tyre: -0.04, chain: 0.02, battery: 0.08 },
};

/** Every (project, line, supplier) offer of a catalogue, in a stable order. */
export function demoParts(catalogue: Catalogue = DEMO_CATALOGUE): DemoPart[] {
  const parts: DemoPart[] = [];
  for (const project of DEMO_PROJECTS) {
    for (const line of catalogue.lines) {
      if (!line.projects.includes(project.id)) continue;
      for (const key of line.suppliers) {
        const supplier = catalogue.suppliers.find((s) => s.key === key);
        if (!supplier?.projects.includes(project.id)) continue;
        parts.push({
          projectId: project.id,
          supplierKey: key,
          code: `${catalogue.codePrefix[key]}-${line.model}`,
          model: line.model,
          category: line.category,
          nameZh: line.nameZh,
          nameEn: line.nameEn,
          spec: line.spec,
          unit: line.unit,
          unitPrice: listPrice(line, supplier),
          moq: line.moq,
        });
      }
    }
  }
  return parts;
}
