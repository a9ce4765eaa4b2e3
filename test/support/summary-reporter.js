// Writes the run's totals to test-artifacts/summary.json so .ci/run can print `tests: N passed, N failed`;
// a run of only the `real-model` project (`npm run e2e:real-model`) writes summary-real-model.json instead.
const fs = require('node:fs');
const path = require('node:path');

function projectName(context) {
  const name = context.config && context.config.displayName;
  return typeof name === 'string' ? name : name && name.name;
}

class SummaryReporter {
  onRunComplete(contexts, results) {
    const dir = path.resolve(__dirname, '../../test-artifacts');
    fs.mkdirSync(dir, { recursive: true });
    const names = [...contexts].map(projectName);
    const file = names.length && names.every((n) => n === 'real-model') ? 'summary-real-model.json' : 'summary.json';
    const failed = results.numFailedTests + results.numRuntimeErrorTestSuites;
    fs.writeFileSync(
      path.join(dir, file),
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
