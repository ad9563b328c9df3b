/** The two HTML comments around a generated part of a doc. */
export interface GeneratedSectionMarkers {
  readonly start: string;
  readonly end: string;
}

/**
 * `doc` with the text between `markers` replaced by `content` (the markers stay). Throws when
 * the markers are missing.
 * @param doc the doc's text
 * @param markers the comments around the generated part
 * @param content the generated Markdown
 * @param docName the doc as the error names it, e.g. `README.md`
 */
export function withGeneratedSection(
  doc: string,
  markers: GeneratedSectionMarkers,
  content: string,
  docName: string,
): string {
  const start = doc.indexOf(markers.start);
  const end = doc.indexOf(markers.end);
  if (start === -1 || end < start) throw new Error(`${docName} lacks the markers ${markers.start} … ${markers.end}`);
  return `${doc.slice(0, start + markers.start.length)}\n${content}\n${doc.slice(end)}`;
}
