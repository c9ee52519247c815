"""Issue 16 (speed): the value classes of the check families, the render model, timestamps and schema validation
are NamedTuples or plain classes, not dataclasses.

Creating a class with ``@dataclass`` compiles 4-6 generated methods with ``exec`` (0.5-0.7 ms each on this machine),
and ``nerb-verify verify`` created these classes on every start. The conversion keeps the dataclasses' behaviour:
the same parameters in the same order with the same defaults, a fresh container per instance where the dataclass
had a default factory, every argument stored, the frozen ones immutable, hashable and equal by value, ``Instant``
ordered as ``order=True`` ordered it, ``Ratio``'s dataclass repr, and pickling (the prefork child pickles schema
errors; copies go through the same protocol).
"""

from __future__ import annotations

import copy
import dataclasses
import importlib
import inspect
import pickle
from collections.abc import Callable
from datetime import datetime, timedelta, timezone
from fractions import Fraction
from typing import Any

import pytest


class Fresh:
    """The dataclass had ``field(default_factory=factory)``: the default is now None and each instance gets its own
    ``factory()``."""

    def __init__(self, factory: Callable[[], Any]) -> None:
        self.factory = factory


REQUIRED = inspect.Parameter.empty


def _figure_values() -> dict[str, dict[Fraction, str | None]]:
    from nerb_verify.checks.presentation import summary

    return {summary.PERCENT: {}, summary.SECONDS: {}, summary.RATE: {}}


def _tracker() -> Any:
    from nerb_verify.checks.performance.floatpolicy import DeviationTracker

    return DeviationTracker()


PERF = "nerb_verify.checks.performance."
PRESENTATION = "nerb_verify.checks.presentation."

# (module, class) -> [(parameter, default)], as the dataclasses declared them.
FROZEN: dict[tuple[str, str], list[tuple[str, Any]]] = {
    (PERF + "statistics", "Denominators"): [
        ("unit", REQUIRED), ("documents", REQUIRED), ("bytes", REQUIRED), ("records", REQUIRED), ("work", REQUIRED)],
    ("nerb_verify.checks.quality.quality_math", "MetricDef"): [
        ("name", REQUIRED), ("fields", REQUIRED), ("numerator", REQUIRED), ("denominator", REQUIRED),
        ("open_world", REQUIRED), ("higher_is_better", REQUIRED)],
    ("nerb_verify.checks.cross_artifact.decisions", "Gate"): [
        ("name", REQUIRED), ("kind", REQUIRED), ("operator", REQUIRED), ("policy", REQUIRED)],
    ("nerb_verify.checks.raw.gate_eval", "GateOutcome"): [
        ("status", REQUIRED), ("reason", ""), ("found", False), ("stored", None), ("value", None), ("result", None)],
    ("nerb_verify.timestamps", "Instant"): [("utc", REQUIRED), ("fraction", REQUIRED)],
    ("nerb_verify.render.model", "Ratio"): [("label", REQUIRED), ("count", REQUIRED), ("total", REQUIRED)],
    ("nerb_verify.render.model", "CoverageRow"): [
        ("label", REQUIRED), ("gold", REQUIRED), ("exact", REQUIRED), ("span_miss", REQUIRED), ("wrong", REQUIRED),
        ("outside", REQUIRED)],
    ("nerb_verify.render.model", "GateRow"): [
        ("name", REQUIRED), ("label", REQUIRED), ("kind", REQUIRED), ("operator", REQUIRED), ("value", REQUIRED),
        ("threshold", REQUIRED), ("passed", REQUIRED)],
    ("nerb_verify.render.model", "ScaleRow"): [
        ("patterns", REQUIRED), ("docs_per_second", REQUIRED), ("median_seconds", REQUIRED)],
    (PRESENTATION + "summary", "Token"): [
        ("file", REQUIRED), ("line", REQUIRED), ("column", REQUIRED), ("text", REQUIRED), ("printed", REQUIRED),
        ("decimals", REQUIRED), ("kind", REQUIRED), ("scale", REQUIRED)],
    ("nerb_verify.schema_validation", "SchemaError"): [("path", REQUIRED), ("keyword", REQUIRED)],
}
MUTABLE: dict[tuple[str, str], list[tuple[str, Any]]] = {
    (PERF + "floatpolicy", "DeviationTracker"): [
        ("max_ulps", 0), ("max_relative", Fraction(0)), ("compared", 0), ("float_step_only", 0)],
    (PERF + "statistics", "WorkloadStats"): [
        ("exact", REQUIRED), ("float_step", REQUIRED), ("m2", REQUIRED), ("ordered", REQUIRED)],
    (PERF + "state", "PerfState"): [
        ("ctx", REQUIRED), ("performance", REQUIRED), ("artifact", "benchmark-evidence.json"),
        ("base", ("performance",)), ("index", Fresh(dict)), ("ns", Fresh(dict)), ("stats", Fresh(dict)),
        ("peak_rss", Fresh(dict)), ("same_path_results", Fresh(dict)), ("cross_path_results", Fresh(dict)),
        ("noise_floors", Fresh(dict)), ("noise_cache", Fresh(dict)), ("max_gap", None), ("breakeven", Fresh(dict)),
        ("tracker", Fresh(_tracker)), ("failures", Fresh(set)), ("blockers", Fresh(set))],
    ("nerb_verify.render.model", "RenderModel"): [
        ("known_verdict", "NOT_EVALUATED"), ("contract_rows", Fresh(list)), ("wrong_mappings", None),
        ("natural_exact", None), ("coverage", Fresh(list)), ("eligible", None), ("gates", Fresh(list)),
        ("scale", Fresh(list)), ("throughput", None), ("throughput_median", None), ("throughput_documents", None),
        ("evaluated_patterns", None), ("latency_median", None), ("latency_p95", None), ("cold_compile", None),
        ("performance_grade", None), ("capacity_passed", None), ("scope", Fresh(list)), ("bank_hash", None),
        ("commit", None), ("machine", None)],
    (PRESENTATION + "summary_model", "RowFigure"): [
        ("value", None), ("num", None), ("den", None), ("thresholds", Fresh(set)), ("rate", None),
        ("seconds", None), ("share", None), ("counts", Fresh(dict)), ("segments", None), ("total", None)],
    (PRESENTATION + "summary_layout", "Cell"): [("line", REQUIRED), ("column", REQUIRED), ("text", REQUIRED)],
    (PRESENTATION + "summary_layout", "Element"): [
        ("name", REQUIRED), ("attrs", REQUIRED), ("offset", REQUIRED), ("text", ""), ("text_offset", 0),
        ("children_text", Fresh(list))],
    (PRESENTATION + "summary_layout", "Row"): [
        ("label", REQUIRED), ("candidates", REQUIRED), ("members", Fresh(list))],
    (PRESENTATION + "summary", "Figures"): [
        ("counts", Fresh(set)), ("values", Fresh(_figure_values)), ("hashes", Fresh(set)), ("_tables", Fresh(dict))],
}
ALL = {**FROZEN, **MUTABLE}


def _class(key: tuple[str, str]) -> type:
    module, name = key
    cls: type = getattr(importlib.import_module(module), name)
    return cls


def _values(key: tuple[str, str]) -> list[str]:
    """One distinct, picklable, hashable value per parameter."""
    return [f"{key[1]}.{name}" for name, _ in ALL[key]]


def _state(obj: object) -> dict[str, Any]:
    """The attributes of a plain object (slots or __dict__), to compare objects that have no __eq__."""
    if hasattr(obj, "__dict__"):
        return {k: _state(v) if hasattr(v, "__dict__") else v for k, v in vars(obj).items()}
    return {name: getattr(obj, name) for name in getattr(type(obj), "__slots__", ())}


def _ids(keys: Any) -> list[str]:
    return [name for _, name in keys]


@pytest.mark.parametrize("key", list(ALL), ids=_ids(ALL))
def test_is_not_a_dataclass(key: tuple[str, str]) -> None:
    assert not dataclasses.is_dataclass(_class(key))


@pytest.mark.parametrize("key", list(ALL), ids=_ids(ALL))
def test_same_parameters_in_the_same_order_with_the_same_defaults(key: tuple[str, str]) -> None:
    parameters = inspect.signature(_class(key)).parameters
    assert list(parameters) == [name for name, _ in ALL[key]]
    for name, default in ALL[key]:
        expected = None if isinstance(default, Fresh) else default
        got = parameters[name].default
        assert got == expected and type(got) is type(expected), name


@pytest.mark.parametrize("key", list(ALL), ids=_ids(ALL))
def test_every_argument_is_stored(key: tuple[str, str]) -> None:
    values = _values(key)
    obj = _class(key)(*values)
    assert [getattr(obj, name) for name, _ in ALL[key]] == values
    by_name = _class(key)(**{name: value for (name, _), value in zip(ALL[key], values)})
    assert [getattr(by_name, name) for name, _ in ALL[key]] == values


@pytest.mark.parametrize("key", [k for k, spec in ALL.items() if any(isinstance(d, Fresh) for _, d in spec)],
                         ids=_ids(k for k, spec in ALL.items() if any(isinstance(d, Fresh) for _, d in spec)))
def test_a_default_factory_gives_each_instance_its_own_container(key: tuple[str, str]) -> None:
    required = [v for (name, default), v in zip(ALL[key], _values(key)) if default is REQUIRED]
    first, second = _class(key)(*required), _class(key)(*required)
    for name, default in ALL[key]:
        if isinstance(default, Fresh):
            a, b = getattr(first, name), getattr(second, name)
            want = default.factory()
            assert type(a) is type(want) and a is not b, name
            assert (_state(a) == _state(want)) if hasattr(want, "__dict__") else a == want, name


@pytest.mark.parametrize("key", list(FROZEN), ids=_ids(FROZEN))
def test_frozen_classes_stay_immutable_equal_by_value_and_hashable(key: tuple[str, str]) -> None:
    values = _values(key)
    obj = _class(key)(*values)
    first = ALL[key][0][0]
    with pytest.raises(AttributeError):
        setattr(obj, first, "changed")
    with pytest.raises(AttributeError):
        delattr(obj, first)
    with pytest.raises(AttributeError):
        obj.not_a_field = 1  # type: ignore[attr-defined]
    assert getattr(obj, first) == values[0]
    same = _class(key)(*values)
    other = _class(key)(*(values[:-1] + ["different"]))
    assert obj == same and hash(obj) == hash(same) and obj != other
    assert len({obj, same, other}) == 2


@pytest.mark.parametrize("key", list(ALL), ids=_ids(ALL))
def test_instances_pickle_and_copy(key: tuple[str, str]) -> None:
    obj = _class(key)(*_values(key))
    for clone in (pickle.loads(pickle.dumps(obj, protocol=pickle.HIGHEST_PROTOCOL)), pickle.loads(pickle.dumps(obj)),
                  copy.copy(obj), copy.deepcopy(obj)):
        assert type(clone) is type(obj)
        assert [getattr(clone, n) for n, _ in ALL[key]] == [getattr(obj, n) for n, _ in ALL[key]]
        if key in FROZEN:
            assert clone == obj


def test_ratio_keeps_the_dataclass_repr_and_equality() -> None:
    """``Ratio`` has a field named ``count`` (a tuple method), so it is a plain immutable class, not a NamedTuple."""
    from nerb_verify.render.model import Ratio

    ratio = Ratio("Active patterns", 3, 4)
    assert repr(ratio) == "Ratio(label='Active patterns', count=3, total=4)"
    assert ratio == Ratio(label="Active patterns", count=3, total=4)
    assert ratio != ("Active patterns", 3, 4) and ratio != Ratio("Active patterns", 3, 5)
    assert hash(ratio) == hash(("Active patterns", 3, 4))
    assert not hasattr(ratio, "__dict__")


def test_instants_order_by_utc_second_then_fraction() -> None:
    """``Instant`` was ``order=True``: instants compare as (utc, fraction), so sorting needs no key."""
    from nerb_verify.timestamps import Instant, parse

    second = datetime(2026, 7, 15, 9, 30, 33, tzinfo=timezone.utc)
    early, late = Instant(second, Fraction(9, 10)), Instant(second + timedelta(seconds=1), Fraction(0))
    middle = Instant(second, Fraction(99, 100))
    assert early < middle < late and late > early and early <= Instant(second, Fraction(9, 10))
    assert sorted([late, middle, early]) == [early, middle, late]
    assert max([early, late, middle]) is late
    assert parse("2026-07-15T09:30:33.99Z") == middle and parse("2026-07-15T11:30:34+02:00") == late
    with pytest.raises(TypeError):
        _ = early < None  # type: ignore[operator]
