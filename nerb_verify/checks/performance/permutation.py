"""Exact whole-block label-swap permutation test for same-path stability comparisons.

Each of the 2**B masks swaps candidate block i with control block i when bit i is set; the pooled statistic
(median, or a nearest-rank percentile) is recomputed on both relabelled pools and the test statistic is
|ln(max/min)| of the two pooled values. The p-value is the fraction of masks whose statistic is >= the observed one
(identity included). Comparisons of |ln(a/b)| are done without logarithms: for positive integers,
|ln(a/b)| >= |ln(c/d)| iff max(a,b) * min(c,d) >= max(c,d) * min(a,b).

Speed: all values are integer ns. Blocks are split into two halves (low bits / high bits of the mask); for each half
and each of its sub-masks the merged, sorted, trimmed pool fragment is precomputed once, so one mask costs one merge
of two short sorted lists per pool. For a nearest-rank index near the top only the top ``n - index`` values of each
fragment can matter (trimming is exact). The needed item of a merged pool is read off a sort of the two fragments
when they are short, and found by a binary search of the split between them when they are long (the 100-sample
medians: no merge at all). No Fraction is created anywhere in this module.
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


# Merged fragments longer than this are not sorted: their order statistics come from a binary search of the split
# (about 2 ms less per 100-sample median comparison); shorter ones sort faster than the search runs in Python.
SEARCH_ABOVE = 40


def split_at(lo: list[int], hi: list[int], k: int) -> tuple[int, int]:
    """The merged position ``k`` (0-based) of two ascending lists as a split: ``(i, k + 1 - i)`` items from ``lo``
    and ``hi`` make the ``k + 1`` smallest of the merged list, so its item ``k`` is ``max(lo[i - 1], hi[j - 1])`` and
    item ``k + 1`` is ``min(lo[i], hi[j])`` (a side that contributes nothing is left out). Binary search on ``i``:
    the smallest ``i`` whose ``lo[i]`` is not below ``hi[k - i]``. Requires ``0 <= k < len(lo) + len(hi)``."""
    first, last = max(0, k + 1 - len(hi)), min(k + 1, len(lo))
    while first < last:
        i = (first + last) // 2
        if lo[i] < hi[k - i]:
            first = i + 1
        else:
            last = i
    return first, k + 1 - first


def _kth(lo: list[int], hi: list[int], k: int) -> int:
    """Item ``k`` (0-based) of the merge of two ascending lists."""
    i, j = split_at(lo, hi, k)
    if i == 0:
        return hi[j - 1]
    if j == 0:
        return lo[i - 1]
    return max(lo[i - 1], hi[j - 1])


def _kth_pair(lo: list[int], hi: list[int], k: int) -> int:
    """Items ``k`` and ``k + 1`` of the merge of two ascending lists, summed."""
    i, j = split_at(lo, hi, k)
    below = hi[j - 1] if i == 0 else lo[i - 1] if j == 0 else max(lo[i - 1], hi[j - 1])
    above = hi[j] if i == len(lo) else lo[i] if j == len(hi) else min(lo[i], hi[j])
    return below + above


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
    search = len(low[0]) + len(high[0]) > SEARCH_ABOVE
    if len(indices) == 1:
        values = ([_kth(lo, hi, first) for hi in high for lo in low] if search
                  else [sorted(lo + hi)[first] for hi in high for lo in low])
    elif indices[0] == indices[1]:
        values = ([2 * _kth(lo, hi, first) for hi in high for lo in low] if search
                  else [2 * sorted(lo + hi)[first] for hi in high for lo in low])
    else:
        second = indices[1] - shift  # the median of an even pool: items first and first + 1
        values = ([_kth_pair(lo, hi, first) for hi in high for lo in low] if search
                  else [(merged := sorted(lo + hi))[first] + merged[second] for hi in high for lo in low])
    # The complement of mask m is full - m, i.e. the same list read backwards.
    observed_a, observed_b = values[0], values[-1]
    obs_hi, obs_lo = max(observed_a, observed_b), min(observed_a, observed_b)
    hits = sum([a * obs_lo >= obs_hi * b if a >= b else b * obs_lo >= obs_hi * a
                for a, b in zip(values, reversed(values))])
    return hits, 1 << count_blocks
