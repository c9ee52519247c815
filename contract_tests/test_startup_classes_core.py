"""The verifier's core records are not dataclasses (issue 16, speed): the ones imported before the verifier forks.

Creating a class with ``@dataclasses.dataclass`` compiles its generated methods with ``exec`` (about 0.5 ms a class
on the reference machine), paid by every ``nerb-verify verify`` at import time. The frozen records became
``typing.NamedTuple`` classes and the mutable ones plain classes; these tests pin that, and that nothing a caller
relies on changed: constructors (names, order, defaults), immutability, ``_replace``, pickling (the prefork child
sends findings through a pipe), equality, hashing and the repr that test summaries compare.
"""

from __future__ import annotations

import dataclasses
import importlib
import inspect
import pickle
from pathlib import Path
from typing import Any

import pytest

from nerb_verify import bundle, codes, context, findings, loader, prefork, verify
from nerb_verify.outputs import locations

MODULES = ("nerb_verify.prefork", "nerb_verify.codes", "nerb_verify.findings", "nerb_verify.context",
           "nerb_verify.loader", "nerb_verify.outputs.locations", "nerb_verify.bundle", "nerb_verify.verify")

EMPTY = inspect.Parameter.empty


def _own_classes(name: str) -> list[type]:
    module = importlib.import_module(name)
    return [value for value in vars(module).values() if isinstance(value, type) and value.__module__ == name]


@pytest.mark.parametrize("name", MODULES)
def test_the_start_up_modules_define_no_dataclass(name: str) -> None:
    classes = _own_classes(name)
    assert classes, name
    assert [cls.__name__ for cls in classes if dataclasses.is_dataclass(cls)] == []


def _parameters(cls: type) -> list[tuple[str, Any]]:
    signature = inspect.signature(cls)
    return [(p.name, p.default) for p in signature.parameters.values()]


# Every constructor as the dataclass generated it (default factories are now ``None``, meaning "a new empty one").
SIGNATURES: list[tuple[type, list[tuple[str, Any]]]] = [
    (prefork.Child, [("pid", EMPTY), ("fd", EMPTY), ("jobs", EMPTY)]),
    (prefork.Outcome, [("from_child", 0), ("in_parent", 0), ("left", 0)]),
    (codes.CodeInfo, [("code", EMPTY), ("family", EMPTY), ("title", EMPTY), ("severity", EMPTY), ("help", EMPTY)]),
    (findings.Finding, [("code", EMPTY), ("artifact", EMPTY), ("pointer", EMPTY), ("message", EMPTY),
                        ("line", None), ("column", None)]),
    (findings.Recomputed, [("artifact", EMPTY), ("pointer", EMPTY), ("figure", EMPTY), ("published", EMPTY),
                           ("exact", EMPTY), ("value", EMPTY), ("status", EMPTY)]),
    (findings.Collector, [("findings", None), ("recomputed", None), ("decisions", None), ("checks_run", None)]),
    (context.VerifyOptions, [("require_standalone_redaction_eligible", False), ("require_decision_grade", False),
                             ("trusted_lineage", None), ("trusted_lineage_path", None), ("source_repo", None),
                             ("jobs", 1), ("single_run", False)]),
    (context.VerifyContext, [("root", EMPTY), ("options", EMPTY), ("collector", EMPTY), ("files", None),
                             ("artifacts", None), ("loaded", None), ("inventories", None), ("figures", None),
                             ("shared", None)]),
    (loader.Limits, [("max_bytes", 16 * 1024 * 1024), ("max_depth", 100), ("max_nodes", 250_000),
                     ("max_collection", 10_000), ("max_string", 4096), ("max_total_string", 16 * 1024 * 1024),
                     ("max_abs_number", 1e300)]),
    (loader.LoadProblem, [("code", EMPTY), ("pointer", ""), ("line", None), ("column", None), ("message", None)]),
    (loader.LoadedFile, [("path", EMPTY), ("raw", EMPTY), ("sha256", EMPTY), ("size", EMPTY), ("data", None),
                         ("problems", None)]),
    (loader._Frame, [("path", EMPTY), ("keys", EMPTY), ("child", 0), ("expect_key", False)]),
    (locations.PathBase, [("prefix", EMPTY), ("source_root", EMPTY)]),
    (bundle.TextFile, [("path", EMPTY), ("raw", EMPTY), ("sha256", EMPTY), ("size", EMPTY), ("text", EMPTY),
                       ("problems", EMPTY)]),
    (verify.VerifyResult, [("root", EMPTY), ("display_root", EMPTY), ("ctx", EMPTY), ("verdict", EMPTY),
                           ("exit_code", EMPTY)]),
]


@pytest.mark.parametrize(("cls", "expected"), SIGNATURES, ids=[cls.__name__ for cls, _ in SIGNATURES])
def test_constructors_keep_their_parameters_order_and_defaults(cls: type, expected: list[tuple[str, Any]]) -> None:
    assert _parameters(cls) == expected


def _records() -> list[Any]:
    code = loader.INVALID_JSON
    return [
        codes.get(code),
        findings.Finding(code, "a.json", "/x", "m", line=3),
        findings.Recomputed("a.json", "/p", "precision", 0.5, "1/2", 0.5, "match"),
        loader.Limits(max_bytes=7),
        loader.LoadProblem(code, "/k", line=1, column=2),
        locations.PathBase.for_target("bundles/x", Path("/repo")),
    ]


@pytest.mark.parametrize("record", _records(), ids=lambda record: type(record).__name__)
def test_frozen_records_stay_immutable_replaceable_picklable_and_hashable(record: Any) -> None:
    field = type(record)._fields[0]
    with pytest.raises(AttributeError):
        setattr(record, field, None)
    with pytest.raises(AttributeError):
        delattr(record, field)
    changed = record._replace(**{field: "other"})
    assert getattr(changed, field) == "other" and changed != record
    assert getattr(record, field) != "other"
    again = pickle.loads(pickle.dumps(record, protocol=pickle.HIGHEST_PROTOCOL))
    assert again == record and type(again) is type(record) and hash(again) == hash(record)


def test_records_print_as_the_dataclasses_did() -> None:
    finding = findings.Finding("load.invalid_json", "a.json", "/x", "m")
    assert repr(finding) == ("Finding(code='load.invalid_json', artifact='a.json', pointer='/x', message='m', "
                             "line=None, column=None)")
    figure = findings.Recomputed("a.json", "/p", "recall", 1, "1", 1, "match")
    assert repr(figure) == ("Recomputed(artifact='a.json', pointer='/p', figure='recall', published=1, exact='1', "
                            "value=1, status='match')")


def test_each_mutable_object_gets_its_own_empty_containers() -> None:
    one, two = findings.Collector(), findings.Collector()
    one.findings.append(findings.Finding("load.invalid_json", "a.json", "", "m"))
    one.recomputed.append(findings.Recomputed("a.json", "/p", "f", 1, "1", 1, "match"))
    one.decisions["x"] = 1
    one.ran("quality")
    assert (two.findings, two.recomputed, two.decisions, two.checks_run) == ([], [], {}, {})

    decisions: dict[str, Any] = {}
    assert findings.Collector(decisions=decisions).decisions is decisions

    first = context.VerifyContext(Path("."), context.VerifyOptions(), one)
    second = context.VerifyContext(Path("."), context.VerifyOptions(), two)
    for name in ("files", "artifacts", "loaded", "inventories", "figures", "shared"):
        getattr(first, name)["k"] = 1
        assert getattr(second, name) == {}, name
    files: dict[str, Any] = {}
    assert context.VerifyContext(Path("."), context.VerifyOptions(), two, files=files).files is files

    loaded = loader.LoadedFile(Path("a.json"), b"", "", 0)
    loaded.problems.append(loader.LoadProblem(loader.EMPTY))
    assert not loaded.ok and loader.LoadedFile(Path("a.json"), b"{}", "", 2).problems == []


def test_mutable_objects_stay_mutable_and_keep_their_attributes() -> None:
    outcome = prefork.Outcome()
    outcome.from_child += 2
    assert vars(outcome) == {"from_child": 2, "in_parent": 0, "left": 0}
    options = context.VerifyOptions(jobs=2, single_run=True)
    options.source_repo = Path(".")
    assert (options.jobs, options.single_run, options.require_decision_grade) == (2, True, False)
    ctx = context.VerifyContext(Path("."), options, findings.Collector())
    result = verify.VerifyResult(Path("."), ".", ctx, "", 0)
    result.verdict, result.exit_code = "rejected", 1
    assert result.collector is ctx.collector and (result.verdict, result.exit_code) == ("rejected", 1)
