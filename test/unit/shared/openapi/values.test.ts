import { describe, expect, it } from 'vitest';
import {
  ValueFormatError,
  customFieldToInput,
  customFieldToStored,
  parseDisplayDate,
  parseDisplayNumber,
} from '../../../../shared/openapi/index.js';

describe('parseDisplayNumber', () => {
  it('turns the "--" placeholder into null', () => {
    expect(parseDisplayNumber('--')).toBeNull();
  });

  it('reads comma-grouped numbers', () => {
    expect(parseDisplayNumber('1,234,567')).toBe(1234567);
  });

  it('reads plain and signed numbers', () => {
    expect([parseDisplayNumber('42'), parseDisplayNumber('-1,000'), parseDisplayNumber('0')]).toEqual([42, -1000, 0]);
  });

  it('treats an absent field (client without the point feature) as null', () => {
    expect(parseDisplayNumber(undefined)).toBeNull();
  });

  it('refuses a string that is neither a number nor "--"', () => {
    expect(() => parseDisplayNumber('12,34')).toThrow(ValueFormatError);
  });
});

describe('parseDisplayDate', () => {
  it('turns "--" into null and keeps a date', () => {
    expect([parseDisplayDate('--'), parseDisplayDate('2026-03-01')]).toEqual([null, '2026-03-01']);
  });
});

describe('custom-field conversions', () => {
  it('stores a Y-m-d date as 8 digits and converts it back', () => {
    expect(customFieldToStored('date', '2026-01-15')).toBe('20260115');
    expect(customFieldToInput('date', '20260115')).toBe('2026-01-15');
  });

  it('stores a Y-m-d H:i date-time as 12 digits and converts it back', () => {
    expect(customFieldToStored('datetime', '2026-01-15 09:05')).toBe('202601150905');
    expect(customFieldToInput('datetime', '202601150905')).toBe('2026-01-15 09:05');
  });

  it('treats an empty input as a cleared (null) value', () => {
    expect(customFieldToStored('date', '')).toBeNull();
  });

  it('keeps null as null in both directions', () => {
    expect([customFieldToInput('datetime', null), customFieldToStored('number', null)]).toEqual([null, null]);
  });

  it('refuses a date that is not a calendar date', () => {
    expect(() => customFieldToStored('date', '2026-02-30')).toThrow(ValueFormatError);
  });

  it('refuses a date-time with seconds', () => {
    expect(() => customFieldToStored('datetime', '2026-01-15 09:05:00')).toThrow(ValueFormatError);
  });

  it('refuses a stored date of the wrong length', () => {
    expect(() => customFieldToInput('date', '2026011')).toThrow(ValueFormatError);
  });

  it('keeps number input as entered, leading zeros included', () => {
    expect(customFieldToStored('number', '007.50')).toBe('007.50');
  });

  it('refuses number input that is not readable as a number', () => {
    expect(() => customFieldToStored('number', '12a')).toThrow(ValueFormatError);
  });

  it('passes string fields through unchanged', () => {
    expect(customFieldToInput('string', '20260115')).toBe('20260115');
  });
});
