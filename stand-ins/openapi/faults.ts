/**
 * Injected faults (POST /__emulator/faults, stand-ins/openapi/README.md): each applies to the next `times` requests
 * whose method and path (without the query string) match; the first matching fault wins.
 */
import { z } from 'zod';

export const FAULT_KINDS = ['error_500', 'delay', 'reset_before', 'reset_after_commit', 'status'] as const;

export const FaultInput = z
  .strictObject({
    method: z.string().min(1).optional(),
    path: z.string().refine((p) => {
      try {
        new RegExp(p);
        return true;
      } catch {
        return false;
      }
    }, 'must be a valid regular expression'),
    fault: z.enum(FAULT_KINDS),
    times: z.number().int().positive().default(1),
    delay_ms: z.number().int().nonnegative().default(0),
    /** `status` fault: what a gateway, WAF or maintenance page in front of the service answers. */
    status: z.number().int().min(400).max(599).optional(),
    body: z.string().default(''),
    headers: z.record(z.string(), z.string()).default({}),
  })
  .refine((f) => (f.fault === 'status') === (f.status !== undefined), {
    message: 'status (400 to 599) is given with, and only with, the status fault',
    path: ['status'],
  });
export type FaultInput = z.infer<typeof FaultInput>;

/** The answer a `status` fault sends instead of executing the operation. */
export interface FaultAnswer {
  status: number;
  body: string;
  headers: Record<string, string>;
}

export interface Fault {
  id: string;
  method: string | undefined;
  path: RegExp;
  fault: (typeof FAULT_KINDS)[number];
  left: number;
  delayMs: number;
  answer: FaultAnswer | undefined;
}

export class FaultRegistry {
  private faults: Fault[] = [];
  private seq = 0;

  add(input: FaultInput): string {
    const id = `fault-${++this.seq}`;
    this.faults.push({
      id,
      method: input.method?.toUpperCase(),
      path: new RegExp(input.path),
      fault: input.fault,
      left: input.times,
      delayMs: input.delay_ms,
      answer: input.status === undefined ? undefined : { status: input.status, body: input.body, headers: input.headers },
    });
    return id;
  }

  clear(): void {
    this.faults = [];
  }

  /** The first fault matching this request, consumed once; undefined when none applies. */
  take(method: string, path: string): Fault | undefined {
    if (this.faults.length === 0) return undefined;
    const fault = this.faults.find((f) => (f.method === undefined || f.method === method) && f.path.test(path));
    if (!fault) return undefined;
    fault.left -= 1;
    if (fault.left === 0) this.faults.splice(this.faults.indexOf(fault), 1);
    return fault;
  }
}
