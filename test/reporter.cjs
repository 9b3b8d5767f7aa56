// Mocha's spec reporter plus one closing line in the plain "N passed, N failed"
// form that CI reads to know how many tests ran.
const Mocha = require('mocha');

class SpecWithSummary extends Mocha.reporters.Spec {
  constructor(runner, options) {
    super(runner, options);
    runner.once('end', () => {
      const { passes, failures, pending } = runner.stats;
      console.log(`${passes} passed, ${failures} failed, ${pending} skipped`);
    });
  }
}

module.exports = SpecWithSummary;
