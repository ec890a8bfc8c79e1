import DOMPurify from 'dompurify';
import { marked, type Token } from 'marked';
import { memo, useMemo } from 'react';

marked.setOptions({ gfm: true, breaks: true });

/**
 * What an answer may contain: text structure, tables, links and images, and nothing that can style or address the
 * page. Answers are model output a hostile page can steer: a `<style>`, a `style` or `class` attribute (the app's own
 * classes), an `id` or `name` could restyle or hide what the user decides on (an approval card) or clobber the DOM.
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

/** One top-level block, rendered once: while an answer streams only its last block changes. */
const Block = memo(
  function Block({ raw, token }: { raw: string; token: Token }) {
    const html = useMemo(() => DOMPurify.sanitize(marked.parser([token]) as string, SANITIZE), [token]);
    // biome-ignore lint/security/noDangerouslySetInnerHtml: the HTML comes out of DOMPurify
    return <div className="md-block" data-raw-length={raw.length} dangerouslySetInnerHTML={{ __html: html }} />;
  },
  (a, b) => a.raw === b.raw,
);

/** Markdown rendered to sanitised HTML, memoised per block so long streamed answers stay smooth. */
export function Markdown({ text, className }: { text: string; className?: string }) {
  const tokens = useMemo(() => marked.lexer(text).filter((t) => t.type !== 'space'), [text]);
  return (
    <div className={`markdown ${className ?? ''}`}>
      {tokens.map((token, index) => (
        // Blocks only append or change at the end while streaming, so the index is a stable key.
        // biome-ignore lint/suspicious/noArrayIndexKey: see above
        <Block key={index} raw={token.raw} token={token} />
      ))}
    </div>
  );
}
