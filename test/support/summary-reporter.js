// Writes the run's totals to test-artifacts/summary.json so .ci/run can print `tests: N passed, N failed`.
const fs = require('node:fs');
const path = require('node:path');

class SummaryReporter {
  onRunComplete(_contexts, results) {
    const dir = path.resolve(__dirname, '../../test-artifacts');
    fs.mkdirSync(dir, { recursive: true });
    const failed = results.numFailedTests + results.numRuntimeErrorTestSuites;
    fs.writeFileSync(
      path.join(dir, 'summary.json'),
      JSON.stringify({
        passed: results.numPassedTests,
        failed,
        skipped: results.numPendingTests,
        suitesFailed: results.numFailedTestSuites,
      }),
    );
  }
}
module.exports = SummaryReporter;
