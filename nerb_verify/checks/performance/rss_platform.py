"""RSS samples exist only where the performance worker measures them: Linux and macOS.

Spec 20 section 4.5 and spec 50 section 8.3: after each timing sample the worker reports ``ru_maxrss`` of its own
process, converted from KiB on Linux and taken as bytes on macOS; on every other platform it reports null, and a
workload without RSS has ``rss_samples_bytes`` empty and ``peak_rss_bytes`` null. The run's ``environment.os``
(``platform.system()``: ``Linux``, ``Darwin``; bound between report, evidence and manifest elsewhere) therefore
decides whether any RSS figure can exist. A coherent forger who moves a run to another platform (every copy of the
environment and every hash redone) but keeps the RSS samples, or who adds RSS samples to a run on another platform
so that its decision cells gain the RSS support they lack, states an RSS measurement the protocol cannot make there.
Reported once, at ``/environment/os`` of the performance report (of the evidence when there is no report); the
message carries neither the platform nor a figure. An honest run on another platform has no RSS, and its decision
cells then lack RSS support (``performance.sample_support``), which is not this rule.
"""

from __future__ import annotations

from typing import Any

from nerb_verify.checks.performance import codes as C
from nerb_verify.checks.performance.state import PerfState
from nerb_verify.context import EVIDENCE, PERFORMANCE_REPORT

# platform.system() names of the two platforms the worker measures RSS on (macOS also accepted by its own name).
RSS_PLATFORMS = frozenset({"linux", "darwin", "macos"})


def has_rss(workload: Any) -> bool:
    """True when ``workload`` states any RSS figure: a non-empty ``rss_samples_bytes`` or a non-null peak."""
    if not isinstance(workload, dict):
        return False
    samples = workload.get("rss_samples_bytes")
    return (isinstance(samples, list) and bool(samples)) or workload.get("peak_rss_bytes") is not None


def measures_rss(os_name: Any) -> bool | None:
    """Whether the worker measures RSS on the platform ``os_name`` names; None when it is not a string (the schema
    family's finding)."""
    if not isinstance(os_name, str):
        return None
    return os_name.strip().casefold() in RSS_PLATFORMS


def check_rss_platform(state: PerfState) -> None:
    """Report ``performance.rss_unsupported_platform`` when the run's environment names a platform without RSS
    measurement and some workload states RSS figures."""
    report = state.ctx.artifact(PERFORMANCE_REPORT)
    artifact, doc = (PERFORMANCE_REPORT, report) if isinstance(report, dict) else (EVIDENCE, state.ctx.evidence)
    environment = doc.get("environment") if isinstance(doc, dict) else None
    os_name = environment.get("os") if isinstance(environment, dict) else None
    if measures_rss(os_name) is not False:
        return
    if any(has_rss(workload) for workload in state.items("workloads")):
        state.ctx.collector.add(C.RSS_PLATFORM, artifact, "/environment/os",
                                "RSS samples are recorded although the run's platform has no RSS measurement.")
