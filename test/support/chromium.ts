/**
 * Debian's Chromium as the browser tests and the HTML report bench start it, headless. Run as root, it needs
 * --no-sandbox; without the background-networking flags it keeps trying this machine's closed network.
 */
export const CHROMIUM = '/usr/bin/chromium'

export const CHROMIUM_ARGS = [
  '--no-sandbox',
  '--disable-gpu',
  '--disable-quic',
  '--no-first-run',
  '--disable-background-networking',
  '--disable-component-update',
  '--disable-sync',
]
