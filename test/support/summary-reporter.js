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
    // Each failure named with the start of its message: .ci/summary.js prints them last, where a CI log
    // cut to its tail still shows what failed.
    const failedTests = [];
    const short = (text) =>
      String(text)
        .replace(new RegExp(`${String.fromCharCode(27)}\\[[0-9;]*m`, 'g'), '')
        .split('\n')
        .map((l) => l.trim())
        .filter((l) => l && !l.startsWith('at '))
        .slice(0, 6)
        .join(' | ')
        .slice(0, 600);
    for (const suite of results.testResults) {
      const file = path.relative(process.cwd(), suite.testFilePath);
      if (suite.testExecError || (suite.failureMessage && suite.testResults.every((t) => t.status !== 'failed'))) {
        failedTests.push(`${file}: (the file) ${short(suite.testExecError?.message ?? suite.failureMessage)}`);
      }
      const project = (suite.displayName && (suite.displayName.name || suite.displayName)) || 'default';
      const counts = (byProject[project] ??= { passed: 0, failed: 0, skipped: 0, todo: 0 });
      for (const t of suite.testResults) {
        if (t.status === 'passed') counts.passed++;
        else if (t.status === 'failed') counts.failed++;
        else if (t.status === 'todo') counts.todo++;
        else counts.skipped++;
        const name = [...t.ancestorTitles, t.title].join(' › ');
        if (t.status === 'failed') failedTests.push(`${file}: ${name}: ${short(t.failureMessages.join('\n'))}`);
        else if (t.status !== 'passed') skippedTests.push(`${t.status}: ${file}: ${name}`);
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
        failedTests,
      }),
    );
  }
}
module.exports = SummaryReporter;
