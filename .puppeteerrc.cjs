// Puppeteer drives Debian's firefox-esr for the component tests (test/component/web-test-runner.config.ts);
// it must not download a browser of its own at install (this machine's network does not allow it).
module.exports = { skipDownload: true };
