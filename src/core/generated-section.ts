/** The comment lines around a generated part of a document (README.md, docs/*.md). */
export interface GeneratedSectionMarkers {
  readonly start: string;
  readonly end: string;
}

/**
 * `document` with the text between `markers` replaced by `body`: how `npm run docs:*` scripts
 * write the parts of the docs generated from a table, and how their tests find a stale copy.
 * Throws when the markers are missing.
 * @param document the Markdown text
 * @param markers the start and end comment lines
 * @param body the generated Markdown
 */
export function withGeneratedSection(document: string, markers: GeneratedSectionMarkers, body: string): string {
  const start = document.indexOf(markers.start);
  const end = document.indexOf(markers.end);
  if (start === -1 || end < start) throw new Error(`the document lacks the markers ${markers.start} … ${markers.end}`);
  return `${document.slice(0, start + markers.start.length)}\n${body}\n${document.slice(end)}`;
}
