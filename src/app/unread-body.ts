/**
 * Whether the connection should close after `response` because the request's body was refused
 * without being read to its end: every 413, and any error answer to a request that announced a
 * body nobody read. A keep-alive client would otherwise send its next request on a socket the
 * server is still draining (or cuts after a short drain: "socket hang up"). Only error answers
 * to requests with a body pay for the check, so `/health` stays cheap.
 * @param request the request as the runtime handed it over
 * @param response the answer about to be sent
 */
export function refusedUnreadBody(request: Request, response: Response): boolean {
  if (response.status === 413) return true;
  if (response.status < 400 || request.method === 'GET' || request.method === 'HEAD') return false;
  const announcesBody =
    request.headers.has('transfer-encoding') || Number(request.headers.get('content-length') ?? '0') > 0;
  return announcesBody && !request.bodyUsed;
}
