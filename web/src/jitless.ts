import { z } from 'zod';

// zod would try `new Function` to compile its object parsers; the UI's content security policy refuses eval (and
// reports each refusal), so it parses without. Imported first, before any module's schema parses.
z.config({ jitless: true });
