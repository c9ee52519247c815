"""The privacy scanner's value classes are built without ``dataclasses`` (issue 16, speed: creating a dataclass
compiles its generated methods with ``exec``, about half a millisecond each, at every start of ``verify``) and
behave as the dataclasses did: the same fields in the same order with the same defaults, immutable where they were
frozen, equal and hashing by value, copyable and picklable (the prefork child sends results through ``pickle``),
and copied with a change by ``_replace``. ``Normalised`` is a ``NamedTuple``; the rules, profiles and prefilter
hints, read in the scanner's inner loops, are slotted :class:`~nerb_verify.frozen.Frozen` classes.
"""

from __future__ import annotations

import copy
import inspect
import os
import pickle
import subprocess
import sys
from pathlib import Path

import pytest

from nerb_verify.privacy import engine, prefilter
from nerb_verify.frozen import Frozen
from nerb_verify.privacy.normalise import Normalised, normalise
from nerb_verify.privacy.profiles import PROFILES, Profile
from nerb_verify.privacy.rules import ALL_RULES
from nerb_verify.privacy.rules.base import Rule
from nerb_verify.privacy.text_scan import LongLine

REPO = Path(__file__).resolve().parent.parent

# Lists every class a dataclass decorator processes while the privacy modules that ``verify`` imports load.
_LIST_DATACLASSES = """
import dataclasses, importlib, sys
created = []
original = dataclasses._process_class
def process(cls, *args, **kwargs):
    created.append(cls.__module__ + "." + cls.__qualname__)
    return original(cls, *args, **kwargs)
dataclasses._process_class = process
@dataclasses.dataclass(frozen=True)
class Probe:  # the listing itself works
    x: int
for name in sys.argv[1:]:
    importlib.import_module(name)
print("\\n".join(created))
"""
_VERIFY_PRIVACY_MODULES = ("nerb_verify.privacy.json_scan", "nerb_verify.privacy.text_scan",
                           "nerb_verify.privacy.stream", "nerb_verify.privacy.joined")


def test_the_privacy_modules_verify_imports_create_no_dataclass() -> None:
    env = dict(os.environ, PYTHONPATH=str(REPO))
    done = subprocess.run([sys.executable, "-c", _LIST_DATACLASSES, *_VERIFY_PRIVACY_MODULES], capture_output=True,
                          text=True, env=env, cwd=REPO, timeout=120, check=False)
    assert done.returncode == 0, done.stderr[-2000:]
    created = done.stdout.split()
    assert created[0] == "__main__.Probe"
    assert [name for name in created if name.startswith("nerb_verify.privacy.")] == []


_FROZEN_FIELDS = [
    (Rule, ("name", "code", "pattern", "scopes", "validate", "trigger", "gate", "prefilter", "window",
            "window_lead")),
    (Profile, ("name", "rule_names", "flag_numbers", "permit_gate_targets", "rendered_text", "max_rounds",
               "max_chars", "max_url_depth", "max_url_payloads")),
    (prefilter.Hint, ("literal", "lower", "pattern", "min_digits", "on_lower", "marks", "gate")),
    (prefilter._Compiled, ("literal", "lower", "pattern", "min_digits", "on_lower", "marks", "gate")),
    (prefilter._Plan, ("literals", "words", "rest", "counting")),
]


@pytest.mark.parametrize(("cls", "fields"), _FROZEN_FIELDS)
def test_the_frozen_classes_keep_their_fields_and_stay_immutable(cls: type, fields: tuple[str, ...]) -> None:
    # The fields are the slots, taken by ``__init__`` in the same order (``_replace`` and pickling rely on it).
    assert issubclass(cls, Frozen) and not issubclass(cls, tuple)
    assert cls.__slots__ == fields
    assert tuple(inspect.signature(cls.__init__).parameters)[1:] == fields
    instance = cls(*range(len(fields)))
    assert tuple(getattr(instance, name) for name in fields) == tuple(range(len(fields)))
    for name in fields + ("other",):
        with pytest.raises(AttributeError):
            setattr(instance, name, None)
    with pytest.raises(AttributeError):
        delattr(instance, fields[0])
    assert getattr(instance, fields[0]) == 0


@pytest.mark.parametrize(("cls", "fields"), _FROZEN_FIELDS)
def test_the_frozen_classes_compare_hash_copy_and_pickle_by_value(cls: type, fields: tuple[str, ...]) -> None:
    instance = cls(*range(len(fields)))
    same = cls(*range(len(fields)))
    assert instance == same and hash(instance) == hash(same) and instance is not same
    assert instance != tuple(range(len(fields)))  # equal only to an instance of the same class
    for copied in (pickle.loads(pickle.dumps(instance)), copy.copy(instance), copy.deepcopy(instance)):
        assert type(copied) is cls and copied == instance
    changed = instance._replace(**{fields[-1]: "x"})
    assert changed != instance and getattr(changed, fields[-1]) == "x" and getattr(changed, fields[0]) == 0
    assert instance._replace() == instance and instance._replace() is not instance
    with pytest.raises(TypeError):
        instance._replace(not_a_field=1)
    assert repr(instance) == f"{cls.__qualname__}(" + ", ".join(f"{name}={value!r}" for value, name in
                                                               enumerate(fields)) + ")"


def test_hints_and_compiled_hints_of_the_same_parts_are_not_equal() -> None:
    assert prefilter.Hint("@", (), None, 0, False) != prefilter._Compiled("@", (), None, 0, False)


def test_normalised_keeps_its_fields() -> None:
    assert Normalised._fields == ("text", "status", "rounds")
    with pytest.raises(AttributeError):
        normalise("x").text = "y"  # type: ignore[misc]


def test_the_defaults_are_those_of_the_dataclasses() -> None:
    rule = Rule("r", "privacy.email", ALL_RULES["email.address"].pattern, ("full",))
    assert (rule.validate, rule.trigger, rule.gate, rule.prefilter, rule.window, rule.window_lead) == (
        None, None, None, None, None, 3)
    profile = Profile("p", ("email.address",), False, False)
    assert (profile.rendered_text, profile.max_rounds, profile.max_chars, profile.max_url_depth,
            profile.max_url_payloads) == (None, 8, 16384, 4, 256)
    budget = engine._Budget()
    assert (budget.payloads, budget.exceeded) == (0, False)
    budget.payloads += 1  # mutable, as the dataclass was
    assert engine._Budget(3, True).payloads == 3
    line = LongLine(iter(()), "head")
    assert (line.head, line.tail) == ("head", "")
    line.tail = "tail"
    assert line.tail == "tail"


def test_normalised_is_the_same_value_and_pickles() -> None:
    result = normalise("a&#64;b")
    assert (result.text, result.status, result.rounds, result.ok) == ("a@b", "ok", 1, True)
    assert pickle.loads(pickle.dumps(result)) == result
    assert not normalise("x" * 20, max_chars=10).ok


def test_a_replaced_profile_is_a_new_unregistered_profile() -> None:
    contract = PROFILES["contract"]
    custom = contract._replace(max_url_payloads=1)
    assert custom.name == contract.name and custom is not contract and custom != contract
    assert contract._replace() == contract and hash(contract._replace()) == hash(contract)
    assert PROFILES.get(custom.name) is not custom and PROFILES.get(contract.name) is contract
    assert pickle.loads(pickle.dumps(contract)) == contract


def test_a_hint_is_not_a_tuple_of_hints() -> None:
    # ``_hints`` tells a table's tuple of hints from a function returning them with ``isinstance(known, tuple)``:
    # a hint itself must never pass that test.
    hint = prefilter.Hint(literal="@")
    assert not isinstance(hint, tuple)
    assert all(isinstance(known, tuple) or callable(known) for known in prefilter.RULE_HINTS.values())
    assert hint == prefilter.Hint("@") and len({hint, prefilter.Hint("@"), prefilter.Hint("~")}) == 2
    assert repr(hint) == ("Hint(literal='@', lower=(), pattern=None, min_digits=0, on_lower=False, marks=None, "
                          "gate=None)")
