import { type FieldError, ProblemError, unprocessable } from '../shared/index.ts';
import { CHART_MODULES, chartTypeOfTool } from './catalog.ts';
import { frameOf } from './frame.ts';
import { ChartInputError } from './module.ts';
import { PIXEL_RATIO, renderSvg, svgToPng } from './render.ts';
import { type ListedTool, packagedChartTools, validateAgainstSchema } from './schemas.ts';
import { ChartStore, type ImageFormat } from './store.ts';

/** Bumped whenever drawing changes, so stored images of older drawings are not reused. */
const RENDERER_VERSION = 'procura-charts-2';

export interface RenderedChart {
  id: string;
  type: string;
  width: number;
  height: number;
  /** Facts for the caller, e.g. place names that were not found. */
  notes: string[];
  /** True when the image came from the store (same input rendered before). */
  cached: boolean;
  /** PNG pixels per CSS pixel: the PNG is `width × pixelRatio` wide. */
  pixelRatio: number;
}

export interface DrawnChart {
  svg: string;
  width: number;
  height: number;
  notes: string[];
}

/** Validates chart arguments against the AntV tool's schema, draws them, and keeps the images by content hash. */
export class ChartService {
  private schemaMap?: Map<string, Record<string, unknown>>;

  /** `tools` defaults to the AntV package's own declarations, read on the first request rather than at start. */
  constructor(
    readonly store: ChartStore,
    private readonly tools: () => ListedTool[] = packagedChartTools,
  ) {}

  private get schemas(): Map<string, Record<string, unknown>> {
    this.schemaMap ??= new Map(
      this.tools().flatMap((tool) => {
        const type = chartTypeOfTool(tool.name);
        return type ? [[type, tool.inputSchema] as const] : [];
      }),
    );
    return this.schemaMap;
  }

  get types(): string[] {
    return [...CHART_MODULES.keys()];
  }

  /** Arguments checked (with the schema's defaults applied) or a 422 naming every bad field. */
  private check(type: string, args: unknown): Record<string, unknown> {
    const module = CHART_MODULES.get(type);
    const schema = this.schemas.get(type);
    if (!module || !schema)
      throw new ProblemError(400, 'unknown_chart_type', `未知图表类型 / unknown chart type: ${type}`, {
        types: this.types,
      });
    const copy = structuredClone(args ?? {}) as Record<string, unknown>;
    const errors: FieldError[] = validateAgainstSchema(schema, copy);
    if (errors.length)
      throw unprocessable(
        `图表参数无效 / invalid ${type} chart config: ${errors.map((e) => `${e.field}: ${e.message}`).join('; ')}`,
        errors,
      );
    return copy;
  }

  /** Draws one chart as SVG without storing it (the benchmark and the store both use this). */
  draw(type: string, args: unknown): DrawnChart {
    const checked = this.check(type, args);
    const module = CHART_MODULES.get(type)!;
    const frame = frameOf(checked, module.defaultSize);
    if (frame.width < 50 || frame.height < 50 || frame.width > 4000 || frame.height > 4000)
      throw unprocessable('图表尺寸须在 50–4000 像素之间 / width and height must be 50–4000 px', [
        { field: 'width/height', message: '50–4000' },
      ]);
    const notes = frame.notes;
    try {
      const option = module.build(checked as never, frame, notes);
      return { svg: renderSvg(option, frame.width, frame.height), width: frame.width, height: frame.height, notes };
    } catch (error) {
      if (error instanceof ChartInputError)
        throw unprocessable(error.message, [{ field: 'data', message: error.message }]);
      throw error;
    }
  }

  /** Renders (or finds) the SVG and PNG of a chart; the id is the content hash of type + arguments. */
  async render(type: string, args: unknown): Promise<RenderedChart> {
    const checked = this.check(type, args);
    const id = ChartStore.idOf(type, checked, RENDERER_VERSION);
    const stored = await this.store.meta(id);
    if (stored) return { ...stored, id, type, cached: true, pixelRatio: PIXEL_RATIO };
    const drawn = this.draw(type, checked);
    const meta = { width: drawn.width, height: drawn.height, notes: drawn.notes };
    await this.store.put(id, drawn.svg, await svgToPng(drawn.svg), meta);
    return { ...meta, id, type, cached: false, pixelRatio: PIXEL_RATIO };
  }

  image(id: string, format: ImageFormat): Promise<Buffer | undefined> {
    return ChartStore.isId(id) ? this.store.get(id, format) : Promise.resolve(undefined);
  }
}
