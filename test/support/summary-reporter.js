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
    // Per project (unit, integration, real-model): .ci/run checks a minimum count for each and fails on
    // any skipped or todo test, naming them (.ci/summary.js).
    const byProject = {};
    const skippedTests = [];
    for (const suite of results.testResults) {
      const project = (suite.displayName && (suite.displayName.name || suite.displayName)) || 'default';
      const counts = (byProject[project] ??= { passed: 0, failed: 0, skipped: 0, todo: 0 });
      for (const t of suite.testResults) {
        if (t.status === 'passed') counts.passed++;
        else if (t.status === 'failed') counts.failed++;
        else if (t.status === 'todo') counts.todo++;
        else counts.skipped++;
        if (t.status !== 'passed' && t.status !== 'failed') {
          const name = [...t.ancestorTitles, t.title].join(' › ');
          skippedTests.push(`${t.status}: ${path.relative(process.cwd(), suite.testFilePath)}: ${name}`);
        }
      }
    }
    fs.writeFileSync(
      path.join(dir, file),
      JSON.stringify({
        passed: results.numPassedTests,
        failed,
        skipped: results.numPendingTests,
        todo: results.numTodoTests,
        suitesFailed: results.numFailedTestSuites,
        byProject,
        skippedTests,
      }),
    );
  }
}
module.exports = SummaryReporter;
