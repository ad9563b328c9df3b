/**
 * The answer as Deno should send it. Deno writes `connection: close` itself on its answer to a
 * request whose body was left unread, so the `Connection: close` the actor sets on such an answer
 * (see `refusedUnreadBody`, e.g. every 413) would go out a second time: it is dropped there.
 * @param request the request Deno handed over
 * @param response the actor's answer
 */
export function withSingleConnectionHeader(request: Request, response: Response): Response {
  const announcesBody =
    request.headers.has('transfer-encoding') || Number(request.headers.get('content-length') ?? '0') > 0;
  if (!announcesBody || request.bodyUsed || !response.headers.has('connection')) return response;
  try {
    response.headers.delete('connection');
    return response;
  } catch {
    // A response with immutable headers (a fetched one) is copied.
    const headers = new Headers(response.headers);
    headers.delete('connection');
    return new Response(response.body, { status: response.status, statusText: response.statusText, headers });
  }
}
