// A vitest reporter beside the default one: names each test that passed only on a retry (`--retry`), one
// line each, so a flaky test is seen in the log (and in npm test's last lines) rather than passing unnoticed.
export default class RetriedReporter {
  onTestCaseResult(testCase) {
    const d = testCase.diagnostic();
    if (d?.flaky) console.log(`RETRIED ${testCase.module.moduleId.replace(/^.*?\/test\//, "test/")} > ${testCase.fullName} (${d.retryCount} retry)`);
  }
}
