#!/usr/bin/env node
// The end of .ci/run: totals from the summaries the suites wrote (test/support/summary-reporter.js for
// `npm test` and the real-model run, jest --json for the cluster suite), then `tests: N passed, N failed`.
// A skipped or todo test counts as a failure and is named; so does a suite that ran fewer tests than its
// minimum (a file that stopped being picked up, a describe that lost its tests). Issue 34.
// Usage: node .ci/summary.js <npm test status> <real-model status> <cluster status> <failed checks> <consumer status>
const fs = require('node:fs');
const path = require('node:path');

// Today's counts of test()/it() calls per suite (2026-12-06; `.each` tables run more than this):
// raise them as tests are added.
const MINIMUM = { unit: 241, integration: 261, 'real-model': 8, cluster: 21 };

const [testStatus, realModelStatus, clusterStatus, failedChecks, consumerStatus] = process.argv.slice(2).map(Number);
const dir = path.resolve(__dirname, '..', 'test-artifacts');
const read = (name) => {
  try {
    return JSON.parse(fs.readFileSync(path.join(dir, name), 'utf8'));
  } catch {
    return undefined;
  }
};

let passed = 0;
let failed = 0;
const counts = {}; // suite → tests that ran (passed or failed)
const skipped = [];
const failures = []; // "file: test: start of its message", printed last

/** Adds one run's totals; a run that exited non-zero without a failed test counts one failure. */
function add(summary, status) {
  if (!summary) {
    if (status !== 0) failed++;
    return;
  }
  passed += summary.passed;
  failed += summary.failed;
  if (status !== 0 && summary.failed === 0) failed++; // a suite that could not load, a global setup error
  for (const [project, c] of Object.entries(summary.byProject ?? {})) counts[project] = c.passed + c.failed;
  skipped.push(...(summary.skippedTests ?? []));
  failures.push(...(summary.failedTests ?? []));
}

add(read('summary.json'), testStatus);
add(read('summary-real-model.json'), realModelStatus);
const cluster = read('summary-cluster.json');
add(
  cluster && {
    passed: cluster.numPassedTests,
    failed: cluster.numFailedTests + cluster.numRuntimeErrorTestSuites,
    byProject: { cluster: { passed: cluster.numPassedTests, failed: cluster.numFailedTests } },
    failedTests: cluster.testResults.flatMap((f) =>
      f.assertionResults
        .filter((t) => t.status === 'failed')
        .map(
          (t) =>
            `${path.relative(process.cwd(), f.name)}: ${t.fullName}: ${(t.failureMessages ?? []).join(' ').replace(/\s+/g, ' ').slice(0, 400)}`,
        ),
    ),
    skippedTests: cluster.testResults.flatMap((f) =>
      f.assertionResults
        .filter((t) => t.status !== 'passed' && t.status !== 'failed')
        .map((t) => `${t.status}: ${path.relative(process.cwd(), f.name)}: ${t.fullName}`),
    ),
  },
  clusterStatus,
);

// The consumer test's checks (scripts/consumer-test.mjs: the packed package in scratch projects; issue 32).
const consumer = read('summary-consumer.json');
add(consumer && { passed: consumer.passed, failed: consumer.failed }, consumerStatus || 0);

if (skipped.length > 0) {
  console.log(`\n${skipped.length} test(s) skipped or todo (each counts as failed):`);
  for (const s of skipped) console.log(`  ${s}`);
  failed += skipped.length;
}
for (const [suite, min] of Object.entries(MINIMUM)) {
  const ran = counts[suite] ?? 0;
  console.log(`suite ${suite}: ${ran} tests ran (minimum ${min})`);
  if (ran < min) {
    console.log(`  FAILED: suite ${suite} ran ${ran} tests, fewer than its minimum of ${min}`);
    failed++;
  }
}
failed += failedChecks;
if (failures.length > 0) {
  console.log(`\n${failures.length} failed test(s):`);
  for (const f of failures) console.log(`  FAILED ${f}`);
}
console.log(`\ntests: ${passed} passed, ${failed} failed`);
process.exit(failed === 0 ? 0 : 1);
