"""Exact whole-block label-swap permutation test for same-path stability comparisons.

Each of the 2**B masks swaps candidate block i with control block i when bit i is set; the pooled statistic
(median, or a nearest-rank percentile) is recomputed on both relabelled pools and the test statistic is
|ln(max/min)| of the two pooled values. The p-value is the fraction of masks whose statistic is >= the observed one
(identity included). Comparisons of |ln(a/b)| are done without logarithms: for positive integers,
|ln(a/b)| >= |ln(c/d)| iff max(a,b) * min(c,d) >= max(c,d) * min(a,b).

Speed: all values are integer ns. Blocks are split into two halves (low bits / high bits of the mask); for each half
and each of its sub-masks the merged, sorted, trimmed pool fragment is precomputed once, so one mask costs one merge
of two short sorted lists per pool. For a nearest-rank index near the top only the top ``n - index`` values of each
fragment can matter (trimming is exact). No Fraction is created anywhere in this module.
"""

from __future__ import annotations

from collections.abc import Sequence

from nerb_verify.checks.performance.statistics import nearest_rank_index

MEDIAN = "median_seconds"


def _order_indices(metric: str, n: int) -> tuple[int, ...] | None:
    """0-based ascending indices whose sum is the pooled statistic (scaled: median x2, percentile x1)."""
    if metric == MEDIAN:
        return (n // 2, n // 2) if n % 2 else (n // 2 - 1, n // 2)
    if metric == "p99_seconds":
        return (nearest_rank_index(n, 99),)
    if metric == "p95_seconds":
        return (nearest_rank_index(n, 95),)
    return None


def _pooled(blocks: Sequence[Sequence[int]], indices: tuple[int, ...]) -> int:
    ordered = sorted(v for block in blocks for v in block)
    if len(indices) == 2 and indices[0] == indices[1]:
        return 2 * ordered[indices[0]]
    return sum(ordered[i] for i in indices)


def pooled_statistic(samples: Sequence[int], metric: str) -> int | None:
    """The scaled pooled statistic of one sample list (median x2 or the percentile), None for other metrics."""
    indices = _order_indices(metric, len(samples))
    if indices is None or not samples:
        return None
    return _pooled([samples], indices)


def _fragments(cand: list[list[int]], ctrl: list[list[int]], blocks: range, keep: int) -> list[list[int]]:
    """For every sub-mask of ``blocks``: the sorted top-``keep`` values of the pool that sub-mask selects."""
    width = len(blocks)
    out: list[list[int]] = []
    for sub in range(1 << width):
        values: list[int] = []
        for offset, block in enumerate(blocks):
            values.extend(ctrl[block] if (sub >> offset) & 1 else cand[block])
        values.sort()
        out.append(values[-keep:] if keep < len(values) else values)
    return out


def permutation_count(cand_blocks: list[list[int]], ctrl_blocks: list[list[int]], metric: str) -> tuple[int, int]:
    """(count of masks with statistic >= observed, number of masks) for equal-size blocks of integer ns.

    Raises ValueError when the blocks are empty or unequal or the metric has no pooled rule.
    """
    count_blocks = len(cand_blocks)
    if count_blocks == 0 or count_blocks != len(ctrl_blocks):
        raise ValueError("block lists differ")
    size = len(cand_blocks[0])
    if size == 0 or any(len(b) != size for b in cand_blocks) or any(len(b) != size for b in ctrl_blocks):
        raise ValueError("blocks differ in size")
    n = count_blocks * size
    indices = _order_indices(metric, n)
    if indices is None:
        raise ValueError("metric without a pooled rule")
    keep = n - min(indices)
    # Pre-trim each block to its top ``keep`` values (exact for order statistics at or above min(indices)).
    cand = [sorted(b)[-keep:] for b in cand_blocks]
    ctrl = [sorted(b)[-keep:] for b in ctrl_blocks]
    low_width = count_blocks // 2
    low = _fragments(cand, ctrl, range(low_width), keep)
    high = _fragments(cand, ctrl, range(low_width, count_blocks), keep)
    # Every fragment of a half has the same length, so a needed pool index sits at a fixed position of the merged
    # (trimmed) pool. Masks run high-half-major: mask = (h << low_width) | l, the order of the comprehension below.
    shift = n - len(low[0]) - len(high[0])
    first = indices[0] - shift
    if len(indices) == 1:
        values = [sorted(lo + hi)[first] for hi in high for lo in low]
    elif indices[0] == indices[1]:
        values = [2 * sorted(lo + hi)[first] for hi in high for lo in low]
    else:
        second = indices[1] - shift
        values = [(merged := sorted(lo + hi))[first] + merged[second] for hi in high for lo in low]
    # The complement of mask m is full - m, i.e. the same list read backwards.
    observed_a, observed_b = values[0], values[-1]
    obs_hi, obs_lo = max(observed_a, observed_b), min(observed_a, observed_b)
    hits = sum([a * obs_lo >= obs_hi * b if a >= b else b * obs_lo >= obs_hi * a
                for a, b in zip(values, reversed(values))])
    return hits, 1 << count_blocks
