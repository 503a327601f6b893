// Debian's Chromium (/usr/bin/chromium, installed by .ci/run), headless, for
// the tests and scripts that drive real pages with playwright-core.
import { chromium, type Browser } from 'playwright-core';

export function launchChromium(): Promise<Browser> {
  return chromium
    .launch({
      executablePath: '/usr/bin/chromium',
      args: [
        '--headless',
        '--no-sandbox',
        '--disable-gpu',
        '--disable-quic',
        '--no-first-run',
        '--disable-background-networking',
        '--disable-component-update',
        '--disable-sync',
      ],
    })
    .catch((e: unknown) => {
      throw new Error(
        `Debian's chromium is needed at /usr/bin/chromium (apt-get install chromium; .ci/run does): ${String(e)}`,
      );
    });
}
