export { CHART_MODULES, chartTypeOfTool } from './catalog.ts';
export { CHART_EXAMPLES } from './examples.ts';
export { writeGallery } from './gallery.ts';
export { loadGazetteer, locate, locateAll } from './geo.ts';
export { PIXEL_RATIO, svgToPng } from './render.ts';
export { type ListedTool, packagedChartTools, validateAgainstSchema } from './schemas.ts';
export { type ChartsServerOptions, startChartsServer } from './server.ts';
export { ChartService, type DrawnChart, type RenderedChart } from './service.ts';
export { ChartStore } from './store.ts';
