export {
  buildShops,
  INJECTION_PAGE,
  PRICE_LIST_DATE,
  PRICE_OUTLIERS,
  type PricePoint,
  type PriceTier,
  productSlug,
  SHOP_PROFILES,
  type Shop,
  type ShopLayout,
  type ShopProduct,
  type ShopProfile,
  USD_CNY_RATE,
} from './catalog.ts';
export {
  INJECTED_INSTRUCTION,
  type MailDeskOptions,
  REPLY_STYLES,
  type ReplyStyle,
  type SentQuote,
  SUPPLIER_STYLES,
  SupplierMailDesk,
} from './mail-desk.ts';
export { NEWS_ARTICLES, type NewsArticle } from './news.ts';
export { historyJsonPath, productPath } from './pages.ts';
export {
  createSupplierSites,
  DEFAULT_RATE_LIMIT,
  type RateLimit,
  type SiteDocument,
  type SupplierSites,
  type SupplierSitesOptions,
  startSupplierSites,
} from './sites.ts';
