import { timeSeriesChart } from './line.ts';

export const area = timeSeriesChart('area');
