import type { EChartsOption } from 'echarts/types/dist/echarts';
import type { CommonArgs, Frame } from './frame.ts';

/** One chart type: turns the AntV tool's (already validated) arguments into an ECharts option. */
export interface ChartModule<A extends CommonArgs = CommonArgs> {
  /** The GPT-Vis type name, e.g. `dual-axes`. */
  type: string;
  /** Size when the arguments give none (maps are larger). */
  defaultSize?: { width: number; height: number };
  /** `notes` collects facts the caller should hear (e.g. place names that were not found). */
  build(args: A, frame: Frame, notes: string[]): EChartsOption;
}

/** A chart input the renderer cannot draw (unknown place, empty data…): a 4xx-class failure, not a crash. */
export class ChartInputError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'ChartInputError';
  }
}

export const defineChart = <A extends CommonArgs>(module: ChartModule<A>): ChartModule<A> => module;
