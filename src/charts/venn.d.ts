declare module 'venn.js' {
  interface Area {
    sets: string[];
    size: number;
  }
  type Circles = Record<string, { x: number; y: number; radius: number }>;
  export function venn(areas: Area[]): Circles;
  export function scaleSolution(solution: Circles, width: number, height: number, padding: number): Circles;
  export function computeTextCentres(circles: Circles, areas: Area[]): Record<string, { x: number; y: number }>;
}
