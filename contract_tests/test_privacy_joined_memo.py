"""Issue 16 speed work: the per-process memo of joined containers (``joined._CONTAINERS``) serves exactly what a
fresh scan of the container reports, per profile, and never serves a custom profile that shares a registered
profile's name."""

from __future__ import annotations

from contract_tests import privacy_corpus
from contract_tests.bundle_texts import bundle_containers
from nerb_verify.privacy import joined
from nerb_verify.privacy.profiles import PROFILES

# Contract: a generic path spelled with look-alike letters across two pieces; repository: nothing.
_SPLIT_PATH = ("/", "\U0001f157\U0001f15e\U0001f15c\U0001f154/x")


def _containers() -> list[tuple[str, tuple[str, ...]]]:
    containers: set[tuple[str, ...]] = set(bundle_containers(0))
    for row in privacy_corpus.rows()[::7]:
        text = row[1]
        containers.add((text[: len(text) // 2], text[len(text) // 2:]))
    containers.add(_SPLIT_PATH)
    return [(str(index), pieces) for index, pieces in enumerate(sorted(c for c in containers if len(c) >= 2))]


def _as_set(found: list) -> set[tuple[str, frozenset[str]]]:
    return {(key, frozenset(codes)) for key, codes in found}


def test_memo_serves_what_a_fresh_scan_reports_per_profile() -> None:
    containers = _containers()
    joined._CONTAINERS.cache_clear()
    expected = {name: _as_set(joined.reference_joined_findings(containers, PROFILES[name]))
                for name in ("contract", "repository")}
    assert expected["contract"] != expected["repository"]  # the profiles differ on these containers
    for name in ("contract", "repository", "contract", "repository"):  # the second round is served by the memo
        assert _as_set(joined.joined_findings(containers, PROFILES[name])) == expected[name], name
    assert joined._CONTAINERS.cache_info()[0] > 100  # the memo was used


def test_the_profile_is_part_of_the_key() -> None:
    joined._CONTAINERS.cache_clear()
    assert joined.joined_findings([("k", _SPLIT_PATH)], PROFILES["contract"]) == [("k", {"privacy.local_path"})]
    assert joined.joined_findings([("k", _SPLIT_PATH)], PROFILES["repository"]) == []


def test_a_custom_profile_of_a_registered_name_is_not_served_from_the_memo() -> None:
    joined._CONTAINERS.cache_clear()
    assert joined.joined_findings([("k", _SPLIT_PATH)], PROFILES["contract"]) == [("k", {"privacy.local_path"})]
    custom = PROFILES["contract"]._replace(rule_names=tuple(name for name in PROFILES["contract"].rule_names
                                                            if not name.startswith("path.")))
    assert custom.name == "contract" and custom is not PROFILES["contract"]
    assert joined.joined_findings([("k", _SPLIT_PATH)], custom) == []


def test_the_memo_is_bounded() -> None:
    memo = joined._ContainerMemo(maxsize=3, name="test")
    for index in range(10):
        memo.put(("contract", (str(index), "x")), {"code"})
    assert memo.cache_info() == (3, 3)
    assert memo.get(("contract", ("9", "x"))) == frozenset({"code"}) and memo.get(("contract", ("0", "x"))) is None


def test_the_memo_holds_a_bounded_number_of_characters() -> None:
    memo = joined._ContainerMemo(maxsize=100, name="test", max_chars=10, max_container_chars=6)
    memo.put(("contract", ("abcdefg", "x")), {"code"})  # 8 characters: longer than a container may be
    assert memo.get(("contract", ("abcdefg", "x"))) is None
    for index in range(5):
        memo.put(("contract", (str(index), "abc")), {"code"})  # 4 characters each
    assert memo.chars <= 10 and memo.cache_info()[0] == 2
    assert memo.get(("contract", ("4", "abc"))) == frozenset({"code"})
    memo.cache_clear()
    assert memo.chars == 0 and memo.cache_info()[0] == 0
