import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';

/** An OTLP attribute value as OTLP/JSON encodes it. */
interface OtlpValue {
  readonly stringValue?: string;
  readonly intValue?: number | string;
  readonly doubleValue?: number;
  readonly boolValue?: boolean;
  readonly arrayValue?: { readonly values?: readonly OtlpValue[] };
}

interface OtlpAttribute {
  readonly key: string;
  readonly value: OtlpValue;
}

interface OtlpSpan {
  readonly traceId: string;
  readonly spanId: string;
  readonly parentSpanId?: string;
  readonly name: string;
  readonly startTimeUnixNano?: string | number;
  readonly endTimeUnixNano?: string | number;
  readonly kind: number;
  readonly attributes?: readonly OtlpAttribute[];
  readonly status?: { readonly code?: number; readonly message?: string };
}

/** The body of `POST /v1/traces` in OTLP/JSON (`ExportTraceServiceRequest`). */
interface OtlpTraceRequest {
  readonly resourceSpans?: readonly {
    readonly resource?: { readonly attributes?: readonly OtlpAttribute[] };
    readonly scopeSpans?: readonly { readonly spans?: readonly OtlpSpan[] }[];
  }[];
}

/** A received span, its attributes and its resource's decoded to plain values. */
export interface ReceivedSpan {
  readonly traceId: string;
  readonly spanId: string;
  readonly parentSpanId: string | undefined;
  readonly name: string;
  /** OTLP `SpanKind`: 1 internal, 2 server, 3 client. */
  readonly kind: number;
  readonly attributes: Record<string, unknown>;
  /** OTLP `StatusCode`: 0 unset, 1 ok, 2 error. */
  readonly statusCode: number;
  /** When the span started, in nanoseconds since the epoch. */
  readonly startNanos: bigint;
  /** When the span ended, in nanoseconds since the epoch. */
  readonly endNanos: bigint;
  readonly resource: Record<string, unknown>;
}

/** An OTLP/HTTP receiver on loopback: what a collector or Jaeger's port 4318 would get. */
export interface OtlpReceiver {
  /** The base URL to give as `OTEL_EXPORTER_OTLP_ENDPOINT`. */
  readonly endpoint: string;
  /** Every export request: its path and content type. */
  readonly exports: { readonly path: string; readonly contentType: string; readonly bytes: number }[];
  /** The spans of the OTLP/JSON exports received so far. */
  readonly spans: ReceivedSpan[];
  close(): Promise<void>;
}

function decodedValue(value: OtlpValue): unknown {
  if (value.stringValue !== undefined) return value.stringValue;
  if (value.intValue !== undefined) return Number(value.intValue);
  if (value.doubleValue !== undefined) return value.doubleValue;
  if (value.boolValue !== undefined) return value.boolValue;
  if (value.arrayValue !== undefined) return (value.arrayValue.values ?? []).map(decodedValue);
  return undefined;
}

const attributesOf = (attributes: readonly OtlpAttribute[] | undefined) =>
  Object.fromEntries((attributes ?? []).map((attribute) => [attribute.key, decodedValue(attribute.value)]));

/** Starts a receiver accepting `POST /v1/traces` (JSON decoded into `spans`; protobuf only counted). */
export async function startOtlpReceiver(): Promise<OtlpReceiver> {
  const exports: OtlpReceiver['exports'] = [];
  const spans: ReceivedSpan[] = [];
  const server = createServer(async (request, response) => {
    const chunks: Buffer[] = [];
    for await (const chunk of request) chunks.push(chunk as Buffer);
    const body = Buffer.concat(chunks);
    const contentType = request.headers['content-type'] ?? '';
    exports.push({ path: request.url ?? '', contentType, bytes: body.length });
    if (request.method !== 'POST' || request.url !== '/v1/traces') {
      response.writeHead(404).end();
      return;
    }
    if (contentType.startsWith('application/json')) {
      const decoded = JSON.parse(body.toString('utf8')) as OtlpTraceRequest;
      for (const resourceSpans of decoded.resourceSpans ?? []) {
        const resource = attributesOf(resourceSpans.resource?.attributes);
        for (const scope of resourceSpans.scopeSpans ?? []) {
          for (const span of scope.spans ?? []) {
            spans.push({
              traceId: span.traceId,
              spanId: span.spanId,
              parentSpanId: span.parentSpanId || undefined,
              name: span.name,
              kind: span.kind,
              attributes: attributesOf(span.attributes),
              statusCode: span.status?.code ?? 0,
              startNanos: BigInt(span.startTimeUnixNano ?? 0),
              endNanos: BigInt(span.endTimeUnixNano ?? 0),
              resource,
            });
          }
        }
      }
      response.writeHead(200, { 'content-type': 'application/json' }).end('{}');
      return;
    }
    response.writeHead(200, { 'content-type': 'application/x-protobuf' }).end();
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    endpoint: `http://127.0.0.1:${port}`,
    exports,
    spans,
    close: () => new Promise<void>((resolve) => server.close(() => resolve())),
  };
}
