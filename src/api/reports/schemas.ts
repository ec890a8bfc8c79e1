import { z } from 'zod';
import { EXPORT_FORMATS } from '../../protocol/index.ts';

export const FileQuery = z.object({ format: z.enum(EXPORT_FORMATS).optional() });
