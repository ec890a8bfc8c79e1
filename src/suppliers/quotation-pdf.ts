/**
 * A one-page text PDF of table rows, as a supplier's quotation system prints one: each cell drawn at its column's
 * position on the row's baseline, in Helvetica (a standard font, so the file carries no font of its own). ASCII only:
 * suppliers answering in a PDF write their quotation in English here.
 */
export function quotationPdf(title: string, rows: Array<Array<string | number>>): Buffer {
  const pdfString = (s: string) => s.replace(/[\\()]/g, (c) => `\\${c}`).replace(/[^\x20-\x7e]/g, '?');
  const cellWidth = 90;
  const text = [
    `BT /F1 14 Tf 1 0 0 1 50 790 Tm (${pdfString(title)}) Tj ET`,
    ...rows.flatMap((row, r) =>
      row.map(
        (cell, c) => `BT /F1 10 Tf 1 0 0 1 ${50 + c * cellWidth} ${750 - r * 18} Tm (${pdfString(String(cell))}) Tj ET`,
      ),
    ),
  ].join('\n');
  const objects = [
    '<< /Type /Catalog /Pages 2 0 R >>',
    '<< /Type /Pages /Kids [3 0 R] /Count 1 >>',
    '<< /Type /Page /Parent 2 0 R /MediaBox [0 0 595 842] /Resources << /Font << /F1 4 0 R >> >> /Contents 5 0 R >>',
    '<< /Type /Font /Subtype /Type1 /BaseFont /Helvetica /Encoding /WinAnsiEncoding >>',
    `<< /Length ${Buffer.byteLength(text)} >>\nstream\n${text}\nendstream`,
  ];
  let pdf = '%PDF-1.4\n';
  const offsets = objects.map((body, i) => {
    const at = Buffer.byteLength(pdf);
    pdf += `${i + 1} 0 obj\n${body}\nendobj\n`;
    return at;
  });
  const xrefAt = Buffer.byteLength(pdf);
  pdf += `xref\n0 ${objects.length + 1}\n0000000000 65535 f \n`;
  pdf += offsets.map((o) => `${String(o).padStart(10, '0')} 00000 n \n`).join('');
  pdf += `trailer\n<< /Size ${objects.length + 1} /Root 1 0 R >>\nstartxref\n${xrefAt}\n%%EOF\n`;
  return Buffer.from(pdf, 'latin1');
}
