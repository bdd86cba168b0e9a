/**
 * Injected faults (POST /__emulator/faults, stand-ins/openapi/README.md): each applies to the next `times` requests
 * whose method and path (without the query string) match; the first matching fault wins.
 */
import { z } from 'zod';

export const FAULT_KINDS = ['error_500', 'delay', 'reset_before', 'reset_after_commit', 'status', 'late_commit'] as const;
export type FaultKind = (typeof FAULT_KINDS)[number];

/** How a `late_commit` fault answers at once, before the operation runs later. */
export const LATE_ANSWERS = ['reset', 'hold', 'status'] as const;
export type LateAnswer = (typeof LATE_ANSWERS)[number];

/** The longest delay a Node timer takes; past it setTimeout fires at once (with a warning), which would commit early. */
export const MAX_COMMIT_AFTER_MS = 2 ** 31 - 1;

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
    /** `status` fault, `late_commit` answering `status`: what a gateway, WAF or maintenance page in front of the service answers. */
    status: z.number().int().min(400).max(599).optional(),
    body: z.string().default(''),
    headers: z.record(z.string(), z.string()).default({}),
    /** `late_commit` only: the answer given at once. */
    answer: z.enum(LATE_ANSWERS).optional(),
    /** `late_commit` only: real milliseconds after the request arrived at which the operation runs. */
    commit_after_ms: z
      .number()
      .int('must be an integer number of milliseconds')
      .nonnegative('must be 0 or more')
      .max(MAX_COMMIT_AFTER_MS, `must be at most ${MAX_COMMIT_AFTER_MS} (a Node timer's limit)`)
      .optional(),
  })
  .superRefine((f, ctx) => {
    const late = f.fault === 'late_commit';
    if (late && f.answer === undefined) {
      ctx.addIssue({ code: 'custom', path: ['answer'], message: 'late_commit needs an answer: "reset", "hold" or "status"' });
    }
    if (late && f.commit_after_ms === undefined) {
      ctx.addIssue({ code: 'custom', path: ['commit_after_ms'], message: 'late_commit needs commit_after_ms (milliseconds, 0 or more)' });
    }
    if (!late && f.answer !== undefined) {
      ctx.addIssue({ code: 'custom', path: ['answer'], message: 'answer is given only with late_commit' });
    }
    if (!late && f.commit_after_ms !== undefined) {
      ctx.addIssue({ code: 'custom', path: ['commit_after_ms'], message: 'commit_after_ms is given only with late_commit' });
    }
    // A fault that answers a status must say which; no other takes one (a late_commit without an answer is refused above).
    const answersStatus = f.fault === 'status' || (late && f.answer === 'status');
    const undecided = late && f.answer === undefined;
    if (!undecided && answersStatus !== (f.status !== undefined)) {
      ctx.addIssue({
        code: 'custom',
        path: ['status'],
        message: 'status (400 to 599) is given with, and only with, the status fault or late_commit answering "status"',
      });
    }
  });
export type FaultInput = z.infer<typeof FaultInput>;

/** The answer a `status` fault (or a `late_commit` answering `status`) sends instead of executing the operation. */
export interface FaultAnswer {
  status: number;
  body: string;
  headers: Record<string, string>;
}

/** What a `late_commit` fault does: answer at once as `answer` says ("status": the fault's `answer`), run the operation `commitAfterMs` later. */
export interface LateCommit {
  answer: LateAnswer;
  commitAfterMs: number;
}

export interface Fault {
  id: string;
  method: string | undefined;
  path: RegExp;
  fault: FaultKind;
  left: number;
  delayMs: number;
  answer: FaultAnswer | undefined;
  late: LateCommit | undefined;
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
      late:
        input.answer === undefined || input.commit_after_ms === undefined
          ? undefined
          : { answer: input.answer, commitAfterMs: input.commit_after_ms },
    });
    return id;
  }

  /** Removes the faults not yet fired; an operation a late_commit already received still runs (see LateCommits). */
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
