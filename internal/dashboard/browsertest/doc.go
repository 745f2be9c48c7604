// Package browsertest holds the dashboard's end-to-end test in a real browser: it starts the
// local server as a process and drives headless Chromium (Debian's chromium package) through
// testdata/e2e.mjs with playwright-core, pinned in the repository's package-lock.json. Nothing
// ever downloads a browser. Without Chromium the test skips and says why.
package browsertest
