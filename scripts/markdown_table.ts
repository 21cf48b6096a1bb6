// A markdown table with padded columns, the way biome formats one (the files it goes into are
// checked by biome and compared with their generators).
export function markdownTable(header: readonly string[], body: readonly string[][]): string[] {
  const widths = header.map((_, i) =>
    Math.max(...[header, ...body].map((row) => row[i]?.length ?? 0)),
  );
  const line = (cells: readonly string[]) =>
    `| ${cells.map((text, i) => text.padEnd(widths[i] ?? 0)).join(" | ")} |`;
  return [line(header), line(widths.map((width) => "-".repeat(width))), ...body.map(line)];
}
