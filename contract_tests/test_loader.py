"""The strict bounded loader: every hostile input is a specific code, never a traceback; it agrees with a strict
reference parser on everything else; ints and floats stay distinct."""

from __future__ import annotations

import json
import math
import os
import resource
import subprocess
import sys
import textwrap
from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from nerb_verify import loader
from nerb_verify.loader import LoadFailure, load_json_file, parse_json_bytes


def code_of(raw: bytes, **kwargs: object) -> str | None:
    try:
        parse_json_bytes(raw, **kwargs)  # type: ignore[arg-type]
    except LoadFailure as failure:
        return failure.problem.code
    return None


@pytest.mark.parametrize(
    ("raw", "code"),
    [
        (b"", "load.empty"),
        (b"\xef\xbb\xbf{}", "load.bom"),
        (b'{"a":"\xff"}', "load.invalid_utf8"),
        (b'{"a":"\xed\xa0\x80"}', "load.invalid_utf8"),
        (b"{}x", "load.invalid_json"),
        (b'{"a":"\x01"}', "load.invalid_json"),
        (b'{"a":1,}', "load.invalid_json"),
        (b"{'a':1}", "load.invalid_json"),
        (b"[" * 101 + b"]" * 101, "load.too_deep"),
        (b'{"a":[' + b"0," * 250_000 + b"0]}", "load.too_many_nodes"),
        (b'{"a":[' + b"0," * 10_000 + b"0]}", "load.collection_too_large"),
        (b'{"a":"' + b"x" * 4097 + b'"}', "load.string_too_long"),
        (b'{"' + b"k" * 4097 + b'":1}', "load.string_too_long"),
        (b'{"a":1,"a":1}', "load.duplicate_key"),
        (b'{"x":[{"a":1,"a":2}]}', "load.duplicate_key"),
        (b'{"a":NaN}', "load.non_finite_number"),
        (b'{"a":Infinity}', "load.non_finite_number"),
        (b'{"a":-Infinity}', "load.non_finite_number"),
        (b'{"a":1e999}', "load.number_out_of_range"),
        (b'{"a":-1e301}', "load.number_out_of_range"),
        (b'{"a":' + b"9" * 302 + b"}", "load.number_out_of_range"),
        (b'{"a":' + b"9" * 5000 + b"}", "load.number_out_of_range"),
        (b'{"a":"\\ud800"}', "load.lone_surrogate"),
        (b'{"\\udfff":1}', "load.lone_surrogate"),
        (b"[]", "load.wrong_root_type"),
        (b'"text"', "load.wrong_root_type"),
    ],
)
def test_hostile_inputs_have_their_own_code(raw: bytes, code: str) -> None:
    assert code_of(raw) == code


def test_limits_are_inclusive() -> None:
    assert code_of(b"[" * 100 + b"]" * 100, root="array") is None
    assert code_of(b'{"a":[' + b"0," * 9_999 + b"0]}") is None
    assert code_of(b'{"a":"' + b"x" * 4096 + b'"}') is None
    assert code_of(b'{"a":1e300}') is None


def test_paired_surrogates_are_fine() -> None:
    assert parse_json_bytes(b'{"a":"\\ud83d\\ude00"}') == {"a": "\U0001F600"}


def test_ints_and_floats_stay_distinct() -> None:
    data = parse_json_bytes(b'{"i":7200,"f":7200.0,"e":1e-05,"b":true}')
    assert type(data["i"]) is int and type(data["f"]) is float and type(data["b"]) is bool
    assert data["e"] == 1e-05


def test_duplicate_key_pointer_does_not_print_unknown_keys() -> None:
    with pytest.raises(LoadFailure) as caught:
        parse_json_bytes(b'{"quality":{"private-name":{"x":1,"x":2}}}')
    assert caught.value.problem.pointer == "/quality/@key:0"
    assert "private" not in caught.value.problem.pointer


def _problem(raw: bytes) -> loader.LoadProblem:
    with pytest.raises(LoadFailure) as caught:
        parse_json_bytes(raw)
    return caught.value.problem


@pytest.mark.parametrize(("raw", "pointer", "line", "column"), [
    (b'{"a": 1,\n  "a": 2}', "", 2, 3),
    (b'{"a":1,"\\u0061":2}', "", 1, 8),
    (b'{"quality":{"k":"a,\\"b","k":1}}', "/quality", 1, 25),
    (b'{"x": [{"a": 1}, {"b": 1,\r\n "b": 2}]}', "/@key:0/1", 2, 2),
    (b'{"a": {"b": 1, "c": {"d": [1, {"e": 1, "e": 2}]}},\n "f": {"g": 1, "g": 2}}', "/@key:1", 2, 16),
    (b'{"s": "\xc3\xa9\xc3\xa9", "s": 1}', "", 1, 13),
])
def test_duplicate_key_has_a_line_and_column(raw: bytes, pointer: str, line: int, column: int) -> None:
    """Issue 15 item 8: the repeated key's own position (1-based line, column in characters), besides the pointer
    that names its object."""
    problem = _problem(raw)
    assert (problem.code, problem.pointer, problem.line, problem.column) == ("load.duplicate_key", pointer, line,
                                                                             column)


def test_syntax_error_message_gives_the_position_once() -> None:
    problem = _problem(b'{"a": 1,\n  "b" 2}')
    assert (problem.code, problem.line, problem.column) == ("load.invalid_json", 2, 7)
    assert problem.message is None or ("line" not in problem.message and "2" not in problem.message)


def test_scan_text_output_gives_each_position_once(tmp_path: Path) -> None:
    from contract_tests.conftest import run_cli

    (tmp_path / "dup.json").write_text('{"a": 1,\n  "a": 2}')
    (tmp_path / "bad.json").write_text('{"a": 1,\n  "b" 2}')
    result = run_cli("scan", "--no-allowlist", "--profile", "contract", "bad.json", "dup.json", cwd=tmp_path)
    assert result.stdout.splitlines()[:2] == [
        "bad.json:2:7: error load.invalid_json: File is not valid JSON.",
        "dup.json:2:3: error load.duplicate_key: A JSON object repeats a key.",
    ]


def test_symlink_and_non_regular_paths(tmp_path: Path) -> None:
    real = tmp_path / "real.json"
    real.write_text("{}")
    link = tmp_path / "link.json"
    link.symlink_to(real)
    assert load_json_file(link).problems[0].code == "load.symlink"
    assert load_json_file(tmp_path).problems[0].code == "load.not_regular_file"
    assert load_json_file(tmp_path / "missing.json").problems[0].code == "load.unreadable"
    fifo = tmp_path / "fifo"
    os.mkfifo(fifo)
    assert load_json_file(fifo).problems[0].code == "load.not_regular_file"


def test_size_cap_is_checked_before_reading(tmp_path: Path) -> None:
    big = tmp_path / "big.json"
    with open(big, "wb") as handle:
        handle.truncate(loader.CONTRACT_LIMITS.max_bytes + 1)
    assert load_json_file(big, loader.CONTRACT_LIMITS).problems[0].code == "load.too_large"


def test_real_bundle_files_load(real_bundle: Path) -> None:
    for path in sorted(real_bundle.glob("*.json")):
        limits = loader.CONTRACT_LIMITS if path.name.startswith("benchmark-") else loader.BUNDLE_LIMITS
        loaded = load_json_file(path, limits)
        assert loaded.ok, path.name
        assert loaded.data == json.loads(path.read_bytes())


def _reference_parse(raw: bytes) -> object:
    """A strict reference: Python's json with duplicate, constant and surrogate rejection, object root."""

    def pairs(items: list[tuple[str, object]]) -> dict[str, object]:
        keys = [k for k, _ in items]
        if len(set(keys)) != len(keys):
            raise ValueError("duplicate")
        return dict(items)

    def constant(token: str) -> object:
        raise ValueError("constant")

    text = raw.decode("utf-8")
    value = json.loads(text, object_pairs_hook=pairs, parse_constant=constant)
    if not isinstance(value, dict):
        raise ValueError("root")
    json.dumps(value, ensure_ascii=False).encode("utf-8")  # lone surrogates fail here
    return value


json_values = st.recursive(
    st.none() | st.booleans() | st.integers(-(10**20), 10**20)
    | st.floats(allow_nan=False, allow_infinity=False, min_value=-1e300, max_value=1e300)
    | st.text(max_size=20),
    lambda children: st.lists(children, max_size=5) | st.dictionaries(st.text(max_size=8), children, max_size=5),
    max_leaves=30,
)


@settings(max_examples=300, deadline=None)
@given(st.dictionaries(st.text(max_size=8), json_values, max_size=6))
def test_generated_json_round_trips(value: dict) -> None:
    raw = json.dumps(value, ensure_ascii=False).encode("utf-8")
    assert parse_json_bytes(raw) == _reference_parse(raw)


@settings(max_examples=500, deadline=None)
@given(st.binary(max_size=200))
def test_arbitrary_bytes_never_raise_anything_else(raw: bytes) -> None:
    try:
        ours: object = parse_json_bytes(raw)
    except LoadFailure:
        ours = None
    try:
        reference: object = _reference_parse(raw)
    except (ValueError, UnicodeError, RecursionError):
        reference = None
    if reference is not None and all(not isinstance(v, float) or abs(v) <= 1e300 for v in _leaves(reference)):
        assert ours == reference
    if ours is not None:
        assert reference is not None


def _leaves(value: object) -> list[object]:
    if isinstance(value, dict):
        return [leaf for v in value.values() for leaf in _leaves(v)]
    if isinstance(value, list):
        return [leaf for v in value for leaf in _leaves(v)]
    return [value]


@settings(max_examples=200, deadline=None)
@given(st.text(max_size=60))
def test_arbitrary_text_never_raises_anything_else(text: str) -> None:
    try:
        parse_json_bytes(text.encode("utf-8", errors="surrogatepass"))
    except LoadFailure:
        pass


@pytest.mark.parametrize(
    "program",
    [
        "raw = b'[' * 100_000 + b']' * 100_000",
        "raw = b'{\"a\":[' + b'0,' * 2_000_000 + b'0]}'",
        "raw = b'{\"a\":\"' + b'x' * (15 * 1024 * 1024) + b'\"}'",
    ],
    ids=["depth-1e5", "array-2e6", "string-15MiB"],
)
def test_structural_attacks_are_bounded_in_time_and_memory(program: str, tmp_path: Path) -> None:
    """Each structural attack is refused in under 2 s with peak RSS under 300 MB (measured in a subprocess)."""
    script = textwrap.dedent(
        f"""
        import resource, time
        from nerb_verify.loader import LoadFailure, parse_json_bytes
        {program}
        start = time.perf_counter()
        try:
            parse_json_bytes(raw)
            code = None
        except LoadFailure as failure:
            code = failure.problem.code
        elapsed = time.perf_counter() - start
        peak = next(int(line.split()[1]) for line in open("/proc/self/status") if line.startswith("VmHWM:"))
        print(code, elapsed, peak)
        """
    )
    env = dict(os.environ, PYTHONPATH=str(Path(__file__).resolve().parent.parent))
    out = subprocess.run([sys.executable, "-c", script], capture_output=True, text=True, env=env, check=True)
    code, elapsed, peak_kib = out.stdout.split()
    assert code != "None"
    assert float(elapsed) < 2.0
    assert int(peak_kib) * 1024 < 300 * 1024 * 1024
    assert resource.getrusage(resource.RUSAGE_SELF).ru_maxrss > 0
    assert not math.isnan(float(elapsed))
