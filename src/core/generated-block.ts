/** The two HTML comments that enclose a generated block of a Markdown file. */
export interface GeneratedBlockMarkers {
  readonly start: string;
  readonly end: string;
}

/**
 * `markdown` with the text between the markers replaced by `block`, the markers kept. Throws,
 * naming `file`, when the markers are missing or out of order.
 * @param markdown the whole file.
 * @param markers the comments around the block.
 * @param block the generated Markdown, without the markers.
 * @param file the file's name, for the error.
 */
export function withGeneratedBlock(markdown: string, markers: GeneratedBlockMarkers, block: string, file: string): string {
  const start = markdown.indexOf(markers.start);
  const end = markdown.indexOf(markers.end);
  if (start === -1 || end < start) throw new Error(`${file} lacks the markers ${markers.start} … ${markers.end}`);
  return `${markdown.slice(0, start + markers.start.length)}\n${block}\n${markdown.slice(end)}`;
}
