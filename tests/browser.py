"""Debian's Chromium for the browser tests: found, else installed with apt-get where this user may;
otherwise the one-line reason the tests skip with."""
import os
import shutil
import subprocess

PATHS = ("/usr/bin/chromium", "/usr/bin/chromium-browser")


def _found():
    return next((p for p in (os.environ.get("GRAPHBENCH_CHROMIUM"), *PATHS)
                 if p and os.access(p, os.X_OK)), None)


def _apt(*args):
    return subprocess.run(["apt-get", *args], capture_output=True, text=True, timeout=900,
                          env={**os.environ, "DEBIAN_FRONTEND": "noninteractive"})


def chromium():
    """(path to Chromium, None) or (None, why there is none)."""
    if path := _found():
        return path, None
    if not shutil.which("apt-get") or os.geteuid() != 0:
        return None, "no Chromium at /usr/bin/chromium and no apt-get as root to install it"
    try:
        done = _apt("install", "-y", "--no-install-recommends", "chromium")
        if done.returncode:  # the package lists may be missing or stale: fetch them once
            _apt("update")
            done = _apt("install", "-y", "--no-install-recommends", "chromium")
    except (OSError, subprocess.TimeoutExpired) as error:
        return None, f"apt-get install chromium failed: {error}"
    if path := _found():
        return path, None
    last = (done.stderr.strip().splitlines() or ["no output"])[-1]
    return None, f"apt-get install chromium failed: {last}"
