import DOMPurify from 'dompurify';
import { marked, type Token, type Tokens } from 'marked';
import { memo, useMemo } from 'react';
import { listedSources } from '../../../src/protocol/index.ts';

marked.setOptions({ gfm: true, breaks: true });

const escapeAttr = (s: string) =>
  s.replace(/[&<>"]/g, (ch) => ({ '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;' })[ch] as string);

/** A citation after a figure (`[E1]`, `[E1, W2]`), shown small; hovering an id shows the source the text lists. */
interface SourceRefToken extends Tokens.Generic {
  type: 'sourceRef';
  ids: string[];
  titles?: string[];
}
marked.use({
  extensions: [
    {
      name: 'sourceRef',
      level: 'inline',
      start: (src: string) => src.match(/\[[EW]\d/)?.index,
      tokenizer(src: string) {
        const match = /^\[([EW]\d{1,4}(?:,\s*[EW]\d{1,4})*)\]/.exec(src);
        return match ? { type: 'sourceRef', raw: match[0], ids: match[1].split(/,\s*/) } : undefined;
      },
      renderer(token) {
        const { ids, titles = [] } = token as SourceRefToken;
        const cited = ids.map((id, i) => (titles[i] ? `<abbr title="${escapeAttr(titles[i])}">${id}</abbr>` : id));
        return `<sup>[${cited.join(', ')}]</sup>`;
      },
    },
  ],
});

/**
 * What an answer may contain: text structure, tables, links and images, and nothing that can style or address the
 * page. Answers are model output a hostile page can steer: a `<style>`, a `style` or `class` attribute, an `id` or `name` could restyle or hide what the user decides on (an approval card) or clobber the DOM.
 */
const SANITIZE = {
  ALLOWED_TAGS: [
    'p',
    'br',
    'hr',
    'strong',
    'b',
    'em',
    'i',
    'del',
    's',
    'code',
    'pre',
    'blockquote',
    'ul',
    'ol',
    'li',
    'h1',
    'h2',
    'h3',
    'h4',
    'h5',
    'h6',
    'table',
    'thead',
    'tbody',
    'tr',
    'th',
    'td',
    'a',
    'img',
    'sup',
    'sub',
    'abbr',
  ],
  ALLOWED_ATTR: ['href', 'title', 'alt', 'src', 'colspan', 'rowspan', 'align', 'start'],
  ALLOW_DATA_ATTR: false,
  ALLOW_ARIA_ATTR: false,
  FORBID_TAGS: ['style', 'link', 'meta', 'base', 'form', 'input', 'button', 'svg', 'math', 'template'],
  FORBID_ATTR: ['style', 'class', 'id', 'name'],
};

// Links from answers open in a new tab and never get the opener.
DOMPurify.addHook('afterSanitizeAttributes', (node) => {
  if (node.tagName === 'A') {
    node.setAttribute('target', '_blank');
    node.setAttribute('rel', 'noopener noreferrer');
  }
});

/** One top-level block, rendered once: while an answer streams only its last block changes (and every block once
 *  more when the list of sources its citations name arrives). */
const Block = memo(
  function Block({ raw, token }: { raw: string; token: Token; sources: string }) {
    const html = useMemo(() => DOMPurify.sanitize(marked.parser([token]) as string, SANITIZE), [token]);
    // A wide table scrolls sideways inside its block, which takes focus so the keyboard can scroll it too.
    if (token.type === 'table')
      return (
        <div
          className="md-block md-table"
          data-raw-length={raw.length}
          // biome-ignore lint/a11y/noNoninteractiveTabindex: a scrollable region must be reachable by keyboard
          tabIndex={0}
          // biome-ignore lint/security/noDangerouslySetInnerHtml: the HTML comes out of DOMPurify
          dangerouslySetInnerHTML={{ __html: html }}
        />
      );
    // biome-ignore lint/security/noDangerouslySetInnerHtml: the HTML comes out of DOMPurify
    return <div className="md-block" data-raw-length={raw.length} dangerouslySetInnerHTML={{ __html: html }} />;
  },
  (a, b) => a.raw === b.raw && a.sources === b.sources,
);

/** Markdown rendered to sanitised HTML, memoised per block so long streamed answers stay smooth. */
export function Markdown({ text, className }: { text: string; className?: string }) {
  const { tokens, sources } = useMemo(() => {
    const listed = listedSources(text);
    const tokens = marked.lexer(text).filter((t) => t.type !== 'space');
    marked.walkTokens(tokens, (t) => {
      if (t.type === 'sourceRef')
        (t as SourceRefToken).titles = (t as SourceRefToken).ids.map((id) => listed.get(id) ?? '');
    });
    return { tokens, sources: [...listed].join('\n') };
  }, [text]);
  return (
    <div className={`markdown ${className ?? ''}`}>
      {tokens.map((token, index) => (
        // Blocks only append or change at the end while streaming, so the index is a stable key.
        // biome-ignore lint/suspicious/noArrayIndexKey: see above
        <Block key={index} raw={token.raw} token={token} sources={sources} />
      ))}
    </div>
  );
}
