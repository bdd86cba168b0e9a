import type { APIGatewayProxyResultV2, APIGatewayProxyStructuredResultV2 } from 'aws-lambda';

/** An HTTP answer ready to write. */
export interface HttpAnswer {
  status: number;
  headers: Record<string, string | string[]>;
  body: Buffer;
}

function isStructured(result: unknown): result is APIGatewayProxyStructuredResultV2 {
  return typeof result === 'object' && result !== null && 'statusCode' in result;
}

/**
 * What API Gateway (payload 2.0) answers for a Lambda result: a structured result as given (base64
 * bodies decoded, cookies as Set-Cookie); anything else is taken as a JSON body with status 200.
 */
export function fromLambdaResult(result: APIGatewayProxyResultV2<unknown>): HttpAnswer {
  if (!isStructured(result)) {
    const body = typeof result === 'string' ? result : JSON.stringify(result ?? null);
    return { status: 200, headers: { 'content-type': 'application/json' }, body: Buffer.from(body, 'utf8') };
  }
  const headers: Record<string, string | string[]> = {};
  for (const [name, value] of Object.entries(result.headers ?? {})) headers[name.toLowerCase()] = String(value);
  if (result.cookies !== undefined && result.cookies.length > 0) headers['set-cookie'] = result.cookies;
  const text = result.body ?? '';
  const body = result.isBase64Encoded === true ? Buffer.from(text, 'base64') : Buffer.from(text, 'utf8');
  return { status: result.statusCode ?? 200, headers, body };
}

/** API Gateway's own error answers: `{"message": "..."}`. */
export function gatewayError(status: number, message: string): HttpAnswer {
  return {
    status,
    headers: { 'content-type': 'application/json' },
    body: Buffer.from(JSON.stringify({ message }), 'utf8'),
  };
}

export function jsonAnswer(status: number, value: unknown): HttpAnswer {
  return {
    status,
    headers: { 'content-type': 'application/json' },
    body: Buffer.from(JSON.stringify(value), 'utf8'),
  };
}
