"""Progress output for long producer runs: records/s, and a bar when stderr is a terminal.

Only counts are printed, never input text. Off a terminal a plain line is written at most every ``interval`` seconds;
on a terminal the line is redrawn in place.
"""

from __future__ import annotations

import sys
import time
from typing import TextIO


class Progress:
    """A rate-limited progress reporter for one stage (``label``) with an optional known total."""

    def __init__(self, label: str, total: int | None = None, stream: TextIO | None = None, enabled: bool = True,
                 interval: float | None = None) -> None:
        self.label = label
        self.total = total
        self.stream = stream if stream is not None else sys.stderr
        self.enabled = enabled
        self.tty = bool(getattr(self.stream, "isatty", lambda: False)())
        self.interval = interval if interval is not None else (0.25 if self.tty else 10.0)
        self.count = 0
        self.start = time.perf_counter()
        self.last = self.start

    def update(self, n: int = 1) -> None:
        """Advance by ``n`` records; redraw when the interval has passed."""
        self.count += n
        now = time.perf_counter()
        if self.enabled and now - self.last >= self.interval:
            self.last = now
            self._draw(now, final=False)

    def _draw(self, now: float, final: bool) -> None:
        elapsed = max(now - self.start, 1e-9)
        rate = self.count / elapsed
        if self.total:
            done = min(self.count, self.total)
            width = 24
            filled = width * done // self.total
            bar = "[" + "#" * filled + "." * (width - filled) + "] " if self.tty else ""
            text = f"{self.label}: {bar}{done}/{self.total} records, {rate:,.0f} records/s, {elapsed:,.1f} s"
        else:
            text = f"{self.label}: {self.count} records, {rate:,.0f} records/s, {elapsed:,.1f} s"
        if self.tty:
            self.stream.write("\r" + text + ("\n" if final else ""))
        else:
            self.stream.write(text + "\n")
        self.stream.flush()

    def finish(self) -> float:
        """Print the final line (when enabled) and return the elapsed seconds."""
        now = time.perf_counter()
        if self.enabled:
            self._draw(now, final=True)
        return now - self.start
