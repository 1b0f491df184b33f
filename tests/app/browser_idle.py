"""When a Streamlit page is idle, read from the app's own run state: shared by the browser tests
(tests/app/test_browser.py wait_idle) and bench/bench_startup.py."""

# The app's own run state (Streamlit sets it on the stApp element from the server's session status),
# idle for IDLE_MS without a break. The running-man status widget is no signal: Streamlit shows it
# only after a run has lasted 500 ms, so a check 300 ms after a click passed during the very rerun
# the click started (CI read stale pages three times that way).
IDLE_MS = 250
STABLY_IDLE = """(ms) => {
    const app = document.querySelector('[data-testid="stApp"]');
    const idle = app !== null && app.getAttribute('data-test-script-state') === 'notRunning'
        && app.getAttribute('data-test-connection-state') === 'CONNECTED'
        && !document.querySelector('[data-testid="stStatusWidget"]');
    const now = performance.now();
    if (!idle) { window.__auditIdleSince = undefined; return false; }
    if (window.__auditIdleSince === undefined) window.__auditIdleSince = now;
    return now - window.__auditIdleSince >= ms;
}"""
