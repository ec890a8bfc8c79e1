/**
 * The region lexicon: China's provinces and the regions buyers group them in, in Chinese and English. Data only; the
 * reading (reading/regions.ts) finds these words in a request and places the ERP's suppliers by the location the ERP
 * reports for each, so a region filter works on any ERP that names a supplier's province or city.
 */

export interface Province {
  zh: string;
  en: string;
  /** Cities buyers name on their own (a location an ERP may give without its province). */
  cities: Array<[zh: string, en: string]>;
}

export const PROVINCES: readonly Province[] = [
  { zh: '北京', en: 'Beijing', cities: [] },
  { zh: '天津', en: 'Tianjin', cities: [] },
  {
    zh: '河北',
    en: 'Hebei',
    cities: [
      ['石家庄', 'Shijiazhuang'],
      ['保定', 'Baoding'],
      ['唐山', 'Tangshan'],
    ],
  },
  {
    zh: '山西',
    en: 'Shanxi',
    cities: [
      ['太原', 'Taiyuan'],
      ['大同', 'Datong'],
    ],
  },
  { zh: '内蒙古', en: 'Inner Mongolia', cities: [['呼和浩特', 'Hohhot']] },
  {
    zh: '辽宁',
    en: 'Liaoning',
    cities: [
      ['沈阳', 'Shenyang'],
      ['大连', 'Dalian'],
    ],
  },
  {
    zh: '吉林',
    en: 'Jilin',
    cities: [
      ['长春', 'Changchun'],
      ['吉林市', 'Jilin City'],
    ],
  },
  { zh: '黑龙江', en: 'Heilongjiang', cities: [['哈尔滨', 'Harbin']] },
  { zh: '上海', en: 'Shanghai', cities: [] },
  {
    zh: '江苏',
    en: 'Jiangsu',
    cities: [
      ['南京', 'Nanjing'],
      ['苏州', 'Suzhou'],
      ['无锡', 'Wuxi'],
      ['常州', 'Changzhou'],
      ['南通', 'Nantong'],
      ['扬州', 'Yangzhou'],
      ['徐州', 'Xuzhou'],
    ],
  },
  {
    zh: '浙江',
    en: 'Zhejiang',
    cities: [
      ['杭州', 'Hangzhou'],
      ['宁波', 'Ningbo'],
      ['温州', 'Wenzhou'],
      ['台州', 'Taizhou'],
      ['金华', 'Jinhua'],
    ],
  },
  {
    zh: '安徽',
    en: 'Anhui',
    cities: [
      ['合肥', 'Hefei'],
      ['芜湖', 'Wuhu'],
    ],
  },
  {
    zh: '福建',
    en: 'Fujian',
    cities: [
      ['福州', 'Fuzhou'],
      ['厦门', 'Xiamen'],
      ['泉州', 'Quanzhou'],
    ],
  },
  { zh: '江西', en: 'Jiangxi', cities: [['南昌', 'Nanchang']] },
  {
    zh: '山东',
    en: 'Shandong',
    cities: [
      ['济南', 'Jinan'],
      ['青岛', 'Qingdao'],
      ['烟台', 'Yantai'],
    ],
  },
  {
    zh: '河南',
    en: 'Henan',
    cities: [
      ['郑州', 'Zhengzhou'],
      ['洛阳', 'Luoyang'],
    ],
  },
  {
    zh: '湖北',
    en: 'Hubei',
    cities: [
      ['武汉', 'Wuhan'],
      ['十堰', 'Shiyan'],
      ['襄阳', 'Xiangyang'],
    ],
  },
  {
    zh: '湖南',
    en: 'Hunan',
    cities: [
      ['长沙', 'Changsha'],
      ['株洲', 'Zhuzhou'],
    ],
  },
  {
    zh: '广东',
    en: 'Guangdong',
    cities: [
      ['广州', 'Guangzhou'],
      ['深圳', 'Shenzhen'],
      ['佛山', 'Foshan'],
      ['东莞', 'Dongguan'],
      ['珠海', 'Zhuhai'],
      ['中山', 'Zhongshan'],
      ['惠州', 'Huizhou'],
      ['江门', 'Jiangmen'],
      ['肇庆', 'Zhaoqing'],
      ['汕头', 'Shantou'],
    ],
  },
  {
    zh: '广西',
    en: 'Guangxi',
    cities: [
      ['南宁', 'Nanning'],
      ['柳州', 'Liuzhou'],
    ],
  },
  { zh: '海南', en: 'Hainan', cities: [['海口', 'Haikou']] },
  { zh: '重庆', en: 'Chongqing', cities: [] },
  { zh: '四川', en: 'Sichuan', cities: [['成都', 'Chengdu']] },
  { zh: '贵州', en: 'Guizhou', cities: [['贵阳', 'Guiyang']] },
  { zh: '云南', en: 'Yunnan', cities: [['昆明', 'Kunming']] },
  { zh: '西藏', en: 'Tibet', cities: [['拉萨', 'Lhasa']] },
  { zh: '陕西', en: 'Shaanxi', cities: [['西安', "Xi'an"]] },
  { zh: '甘肃', en: 'Gansu', cities: [['兰州', 'Lanzhou']] },
  { zh: '青海', en: 'Qinghai', cities: [['西宁', 'Xining']] },
  { zh: '宁夏', en: 'Ningxia', cities: [['银川', 'Yinchuan']] },
  { zh: '新疆', en: 'Xinjiang', cities: [['乌鲁木齐', 'Urumqi']] },
  { zh: '香港', en: 'Hong Kong', cities: [] },
  { zh: '澳门', en: 'Macau', cities: [] },
  { zh: '台湾', en: 'Taiwan', cities: [] },
];

/** A region as buyers name it: its names in each language, and the provinces (or, for a delta, the cities) in it. */
export interface RegionEntry {
  /** The name answers use, then the other names a request may say. */
  zh: string[];
  en: string[];
  provinces: string[];
  /** A region of cities rather than whole provinces (珠三角 is nine cities of Guangdong). */
  cities?: string[];
}

/** China's seven geographic regions and the economic regions buyers name, as commonly drawn. */
export const REGIONS: readonly RegionEntry[] = [
  {
    zh: ['华东', '华东地区'],
    en: ['East China', 'Eastern China'],
    provinces: ['上海', '江苏', '浙江', '安徽', '福建', '江西', '山东'],
  },
  {
    zh: ['华南', '华南地区'],
    en: ['South China', 'Southern China'],
    provinces: ['广东', '广西', '海南', '香港', '澳门'],
  },
  {
    zh: ['华北', '华北地区'],
    en: ['North China', 'Northern China'],
    provinces: ['北京', '天津', '河北', '山西', '内蒙古'],
  },
  { zh: ['华中', '华中地区'], en: ['Central China'], provinces: ['河南', '湖北', '湖南'] },
  { zh: ['西南', '西南地区'], en: ['Southwest China'], provinces: ['重庆', '四川', '贵州', '云南', '西藏'] },
  { zh: ['西北', '西北地区'], en: ['Northwest China'], provinces: ['陕西', '甘肃', '青海', '宁夏', '新疆'] },
  { zh: ['东北', '东北地区', '东三省'], en: ['Northeast China'], provinces: ['辽宁', '吉林', '黑龙江'] },
  {
    zh: ['长三角', '长江三角洲'],
    en: ['Yangtze River Delta', 'Yangtze Delta'],
    provinces: ['上海', '江苏', '浙江', '安徽'],
  },
  {
    zh: ['珠三角', '珠江三角洲'],
    en: ['Pearl River Delta'],
    provinces: [],
    cities: ['广州', '深圳', '珠海', '佛山', '惠州', '东莞', '中山', '江门', '肇庆'],
  },
  { zh: ['京津冀'], en: ['Beijing-Tianjin-Hebei', 'Jing-Jin-Ji'], provinces: ['北京', '天津', '河北'] },
];
