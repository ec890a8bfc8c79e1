import { categoryChart } from './column.ts';

export const bar = categoryChart('bar');
