import { gfm } from '@joplin/turndown-plugin-gfm';
import { Readability } from '@mozilla/readability';
import { parseHTML } from 'linkedom';
import TurndownService from 'turndown';

/** A schema.org offer read from a page's JSON-LD, reduced to the fields a price comparison uses. */
export interface StructuredOffer {
  product?: string;
  sku?: string;
  price: number;
  currency?: string;
  minQuantity?: number;
  maxQuantity?: number;
  availability?: string;
  inventory?: number;
  leadTimeDays?: number;
  validFrom?: string;
}

export interface ExtractedPage {
  title: string;
  markdown: string;
  offers: StructuredOffer[];
  /** The page says it needs JavaScript, or has scripts and almost no text: render it in a browser. */
  needsJavaScript: boolean;
}

const turndown = new TurndownService({ headingStyle: 'atx', codeBlockStyle: 'fenced', bulletListMarker: '-' });
turndown.use(gfm);
turndown.remove(['script', 'style', 'noscript', 'template', 'iframe', 'svg']);

/** Main content as Markdown, JSON-LD offers as data. Links are made absolute so the model can follow them. */
export function extractHtml(html: string, pageUrl: string): ExtractedPage {
  const { document } = parseHTML(html);
  const offers = jsonLdOffers(document);
  const noscript = [...document.querySelectorAll('noscript')].some((n) => /javascript/i.test(n.textContent ?? ''));
  for (const [selector, attribute] of [
    ['a[href]', 'href'],
    ['img[src]', 'src'],
  ] as const) {
    for (const element of document.querySelectorAll(selector)) {
      try {
        element.setAttribute(attribute, new URL(element.getAttribute(attribute) ?? '', pageUrl).toString());
      } catch {
        element.removeAttribute(attribute);
      }
    }
  }
  const title = (document.querySelector('title')?.textContent ?? '').trim();
  const body = document.querySelector('main') ?? document.querySelector('body');
  const bodyText = (body?.textContent ?? '').replace(/\s+/g, ' ').trim();
  const hasScripts = document.querySelectorAll('script:not([type="application/ld+json"])').length > 0;
  // Readability finds the article on busy pages; on short shop pages it can drop tables, so keep whichever says more.
  const article = new Readability(
    parseHTML(document.toString()).document as unknown as ConstructorParameters<typeof Readability>[0],
  ).parse();
  const articleText = (article?.textContent ?? '').replace(/\s+/g, ' ').trim();
  const contentHtml =
    article?.content && articleText.length >= bodyText.length * 0.8 ? article.content : (body?.innerHTML ?? '');
  const markdown = turndown
    .turndown(contentHtml)
    .replace(/\n{3,}/g, '\n\n')
    .trim();
  return { title, markdown, offers, needsJavaScript: noscript || (hasScripts && bodyText.length < 200) };
}

type JsonObject = Record<string, unknown>;

const asObjects = (value: unknown): JsonObject[] =>
  (Array.isArray(value) ? value : value === undefined || value === null ? [] : [value]).filter(
    (v): v is JsonObject => typeof v === 'object' && v !== null,
  );
const hasType = (node: JsonObject, type: string) =>
  [node['@type']].flat().some((t) => typeof t === 'string' && t.toLowerCase() === type.toLowerCase());
const num = (value: unknown) => {
  const n =
    typeof value === 'number' ? value : typeof value === 'string' ? Number(value.replace(/,/g, '')) : Number.NaN;
  return Number.isFinite(n) ? n : undefined;
};
const short = (value: unknown) => (typeof value === 'string' ? value.slice(0, 200) : undefined);

/** Every Product's offers (Offer, AggregateOffer with nested offers), through @graph and arrays. */
function jsonLdOffers(document: {
  querySelectorAll(selector: string): Iterable<{ textContent: string | null }>;
}): StructuredOffer[] {
  const offers: StructuredOffer[] = [];
  const visit = (node: JsonObject, product?: JsonObject) => {
    for (const inner of asObjects(node['@graph'])) visit(inner);
    if (hasType(node, 'Product')) for (const offer of asObjects(node.offers)) visit(offer, node);
    if (hasType(node, 'AggregateOffer')) for (const offer of asObjects(node.offers)) visit(offer, product);
    if (!hasType(node, 'Offer')) return;
    const spec = asObjects(node.priceSpecification)[0] ?? {};
    const price = num(node.price ?? spec.price);
    if (price === undefined) return;
    const quantity = asObjects(node.eligibleQuantity ?? spec.eligibleQuantity)[0] ?? {};
    offers.push({
      product: short(product?.name),
      sku: short(product?.sku ?? node.sku),
      price,
      currency: short(node.priceCurrency ?? spec.priceCurrency),
      minQuantity: num(quantity.minValue),
      maxQuantity: num(quantity.maxValue),
      availability: short(node.availability)?.replace(/^https?:\/\/schema\.org\//, ''),
      inventory: num(asObjects(node.inventoryLevel)[0]?.value),
      leadTimeDays: num(asObjects(node.deliveryLeadTime)[0]?.maxValue),
      validFrom: short(node.validFrom),
    });
  };
  for (const script of document.querySelectorAll('script[type="application/ld+json"]')) {
    try {
      for (const node of asObjects(JSON.parse(script.textContent ?? ''))) visit(node);
    } catch {
      // A broken JSON-LD block is common on real sites; the Markdown still carries the visible prices.
    }
  }
  return offers;
}
