import { fileURLToPath } from 'node:url';

/** The CJK font every chart is drawn with; shipped through npm so SVG→PNG needs no system fonts. */
export const FONT_FAMILY = 'Noto Sans SC';

export const FONT_FILES = ['400Regular/NotoSansSC_400Regular.ttf', '700Bold/NotoSansSC_700Bold.ttf'].map((file) =>
  fileURLToPath(import.meta.resolve(`@expo-google-fonts/noto-sans-sc/${file}`)),
);

/** AntV's categorical palette, shared by the light and dark themes. */
const ANTV_PALETTE = [
  '#1783FF',
  '#00C9C9',
  '#F0884D',
  '#D580FF',
  '#7863FF',
  '#60C42D',
  '#BD8F24',
  '#FF80CA',
  '#2491B3',
  '#17C76F',
];

export type ThemeName = 'default' | 'academy' | 'dark';

export interface ChartTheme {
  background: string;
  text: string;
  subtleText: string;
  axisLine: string;
  splitLine: string;
  /** Fill for neutral shapes (map land, table header, spine). */
  neutral: string;
  palette: string[];
}

/** The three AntV themes: default (AntV palette), academy (muted print colours), dark. */
export const THEMES: Record<ThemeName, ChartTheme> = {
  default: {
    background: '#ffffff',
    text: '#1d2129',
    subtleText: '#595959',
    axisLine: '#bfbfbf',
    splitLine: '#f0f0f0',
    neutral: '#e8edf3',
    palette: ANTV_PALETTE,
  },
  academy: {
    background: '#ffffff',
    text: '#222222',
    subtleText: '#555555',
    axisLine: '#444444',
    splitLine: '#e6e6e6',
    neutral: '#eeeeee',
    palette: [
      '#4e79a7',
      '#f28e2c',
      '#e15759',
      '#76b7b2',
      '#59a14f',
      '#edc949',
      '#af7aa1',
      '#ff9da7',
      '#9c755f',
      '#bab0ab',
    ],
  },
  dark: {
    background: '#141414',
    text: '#e6e6e6',
    subtleText: '#a6a6a6',
    axisLine: '#595959',
    splitLine: '#303030',
    neutral: '#2b3a4a',
    palette: ANTV_PALETTE,
  },
};
