"""Render a report in headless Chromium: a PNG of the page, to check it reads well."""

from __future__ import annotations

import shutil
import subprocess
import tempfile
from pathlib import Path

from grader.errors import GraderError

# No network, no updates, no profile of the user's: a throwaway browser for one page.
CHROMIUM_FLAGS = [
    "--headless",
    "--no-sandbox",
    "--disable-gpu",
    "--disable-background-networking",
    "--disable-component-update",
    "--no-first-run",
    "--disable-sync",
    "--hide-scrollbars",
    "--disable-dev-shm-usage",
]


def find_chromium() -> str | None:
    for name in ("chromium", "chromium-browser", "google-chrome", "google-chrome-stable"):
        path = shutil.which(name)
        if path:
            return path
    return None


def screenshot(html: Path, png: Path, width: int = 1200, height: int = 4000, timeout: float = 120) -> Path:
    """Render ``html`` into ``png`` with a ``width`` x ``height`` window (make it tall: the whole page)."""
    chromium = find_chromium()
    if chromium is None:
        raise GraderError("Chromium is not installed (Debian/Ubuntu: apt-get install chromium)")
    png = Path(png)
    with tempfile.TemporaryDirectory(prefix="grader-chromium-") as profile:
        argv = [
            chromium,
            *CHROMIUM_FLAGS,
            f"--user-data-dir={profile}",
            f"--window-size={width},{height}",
            f"--screenshot={png.resolve()}",
            "--virtual-time-budget=5000",
            Path(html).resolve().as_uri(),
        ]
        try:
            proc = subprocess.run(argv, capture_output=True, text=True, timeout=timeout)
        except subprocess.TimeoutExpired:
            raise GraderError(f"Chromium did not finish rendering {html} within {timeout:g} s") from None
    if proc.returncode != 0 or not png.is_file() or png.stat().st_size < 10_000:
        raise GraderError(f"Chromium did not render {html} (exit {proc.returncode}):\n{proc.stderr[-2000:]}")
    return png
