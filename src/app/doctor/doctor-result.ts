/** One row of `hark doctor`: ok, a note (passes, with a way to silence it), a failure with its fix, or skipped. */
export interface CheckResult {
  check: string;
  status: 'ok' | 'note' | 'fail' | 'skip';
  detail: string;
  fix?: string;
}

export const ok = (check: string, detail: string): CheckResult => ({ check, status: 'ok', detail });
export const note = (check: string, detail: string, fix: string): CheckResult => ({
  check,
  status: 'note',
  detail,
  fix,
});
export const fail = (check: string, detail: string, fix: string): CheckResult => ({
  check,
  status: 'fail',
  detail,
  fix,
});
export const skip = (check: string, detail: string): CheckResult => ({ check, status: 'skip', detail });
