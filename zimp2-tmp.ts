await import('zod');
const t = performance.now();
const m = await import(process.argv[2]!);
console.log(process.argv[2], (performance.now() - t).toFixed(1), 'ms');
const { z } = await import('zod');
const t2 = performance.now(); for (const k of ['MemberDetail','MemberList','PointHistoryPage','ExpiryPage','TokenResponse']) z.compile(m[k]); console.log('compile 5 more', (performance.now()-t2).toFixed(1),'ms');
