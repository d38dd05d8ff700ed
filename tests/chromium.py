"""How tests and benchmarks launch Debian's Chromium (CONTRIBUTING.md, "Running tests")."""

CHROMIUM = "/usr/bin/chromium"
CHROMIUM_ARGS = [
    "--headless",
    "--no-sandbox",
    "--disable-gpu",
    "--disable-quic",
    "--no-first-run",
    "--disable-background-networking",  # without these Chromium keeps trying to reach the internet
    "--disable-component-update",
    "--disable-sync",
]
