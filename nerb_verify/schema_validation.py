"""The shipped JSON Schema 2020-12 files, an offline ``referencing.Registry``, and two validators that must agree.

* Fast path: fastjsonschema, compiled once per process (or loaded from the precompiled module that
  ``tools/compile_schemas.py`` writes into ``nerb_verify/_compiled_schemas.py``). It answers "valid or not" in a few
  milliseconds for the 1.3 MB evidence file.
* Explanation: ``jsonschema`` with the offline registry, run only when the fast path rejects a document (or when the
  fast path is unavailable), to list *every* error with its instance path and keyword.

Both use NERB's type semantics: ``integer`` is an exact JSON integer (``5.0`` is not an integer; booleans are never
numbers). fastjsonschema follows draft 6+ here (``5.0`` is an integer), so its code generator is given draft 4's
type check. A parity test runs both over every fixture.

Error texts from either library contain instance values and are never printed: only the instance path (rendered with
:mod:`nerb_verify.pointers`) and the keyword are kept.

``jsonschema`` and ``referencing`` are imported only when something must be explained or generated (about 30 ms of
imports that a valid bundle verified with the precompiled validators never needs).
"""

from __future__ import annotations

import functools
import hashlib
import importlib
import json
import marshal
import os
import stat
import sys
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import TYPE_CHECKING, Any, NamedTuple

import fastjsonschema

if TYPE_CHECKING:
    import jsonschema
    from referencing import Registry

from nerb_verify import resources

BASE_URI = "https://schemas.nerb-verify.invalid/"


class SchemaUnavailable(Exception):
    """A schema (or one it references) is not shipped with this installation."""


@functools.lru_cache(maxsize=1)
def schema_store() -> dict[str, dict[str, Any]]:
    """Every shipped schema keyed by its ``$id``."""
    store: dict[str, dict[str, Any]] = {}
    for path in resources.schema_files():
        with open(path, encoding="utf-8") as handle:
            schema = json.load(handle)
        schema_id = schema.get("$id")
        if isinstance(schema_id, str):
            store[schema_id] = schema
    return store


def schema_by_name(file_name: str) -> dict[str, Any]:
    """The schema shipped as ``schemas/<file_name>``."""
    return schema_store()[BASE_URI + file_name]


@functools.lru_cache(maxsize=1)
def registry() -> Registry:
    """An offline registry holding every shipped schema (no network retrieval is ever attempted)."""
    from referencing import Registry, Resource

    reg: Registry = Registry()
    for schema_id, schema in schema_store().items():
        reg = reg.with_resource(schema_id, Resource.from_contents(schema))
    return reg.crawl()


def _is_strict_integer(checker: object, instance: object) -> bool:
    return isinstance(instance, int) and not isinstance(instance, bool)


def _is_strict_number(checker: object, instance: object) -> bool:
    return isinstance(instance, (int, float)) and not isinstance(instance, bool)


@functools.lru_cache(maxsize=1)
def strict_validator_class() -> type[jsonschema.protocols.Validator]:
    """jsonschema's Draft 2020-12 validator with NERB's exact integer and number types."""
    import jsonschema

    return jsonschema.validators.extend(  # type: ignore[no-any-return]
        jsonschema.Draft202012Validator,
        type_checker=jsonschema.Draft202012Validator.TYPE_CHECKER.redefine_many(
            {"integer": _is_strict_integer, "number": _is_strict_number}
        ),
    )


@functools.lru_cache(maxsize=1)
def _strict_draft07_generator() -> type:
    """fastjsonschema's draft-07 generator with draft 4's exact type check (``5.0`` is not an integer), and arrays of
    bounded numbers (:func:`_numeric_items`) or of flat records (:func:`_record_items`) checked in bulk first."""
    from fastjsonschema.draft04 import CodeGeneratorDraft04
    from fastjsonschema.draft07 import CodeGeneratorDraft07

    def generate_items(self: Any) -> None:
        numeric = _numeric_items(self._resolver, self._definition["items"])
        records = None if numeric is not None else _record_items(self._resolver, self._definition["items"])
        if numeric is None and records is None:
            CodeGeneratorDraft07.generate_items(self)
            return
        if numeric is not None:
            integers, minimum, maximum = numeric
            bulk = "{}({}, {}, {}, {})".format(_BULK_NAME, self._variable, integers, repr(minimum), repr(maximum))
        else:
            keys, numbers, strings = records  # type: ignore[misc]
            columns = ", ".join("({!r}, {!r}, {!r}, {})".format(key, low, high, "None" if pattern is None else
                                                                "REGEX_PATTERNS[{!r}]".format(pattern))
                                for key, low, high, pattern in strings)
            # (keys written sorted: a set's repr follows the hash seed, and the shipped source must not)
            bulk = "{}({}, frozenset({!r}), {!r}, ({}))".format(_RECORDS_NAME, self._variable, tuple(sorted(keys)),
                                                                numbers, columns + "," if columns else "")
        self.create_variable_is_list()
        with self.l("if {variable}_is_list:"):
            self.create_variable_with_length()
            with self.l("if not {}:", bulk):  # (an argument: not formatted again, so its braces stay)
                with self.l("for {variable}_x, {variable}_item in enumerate({variable}):"):
                    # (generating the per-item checks also registers every pattern the bulk check names)
                    self.generate_func_code_block(self._definition["items"], "{}_item".format(self._variable),
                                                  "{}[{{{}_x}}]".format(self._variable_name, self._variable))

    def exc(self: Any, msg: str, *args: Any, append_to_msg: str | None = None, rule: str | None = None) -> None:
        # The fast path only answers valid or not (:func:`fast_is_valid` discards the exception, jsonschema explains),
        # so a failed rule raises with the rule's keyword alone. fastjsonschema's own raise carries the value, the
        # item's name and the whole schema as a literal (``definition=``): repeated in every raise, that literal made
        # the shipped validators megabytes of constants loaded at every start (about 11 ms of the verify run) and
        # none of it was ever read. Which values are accepted or rejected does not change (the parity tests).
        self.l("raise JsonSchemaValueException({})", repr(f"schema keyword {rule}"))

    return type("_StrictDraft07Generator", (CodeGeneratorDraft07,),
                {"generate_type": CodeGeneratorDraft04.generate_type, "generate_items": generate_items, "exc": exc})


_NUMERIC_KEYS = frozenset({"type", "minimum", "maximum"})


def _resolved(resolver: Any, schema: Any) -> Any:
    if isinstance(schema, dict) and set(schema) == {"$ref"}:
        with resolver.resolving(schema["$ref"]) as resolved:
            return resolved
    return schema


def _numeric_items(resolver: Any, items: Any) -> tuple[bool, int | float | None, int | float | None] | None:
    """(integers only, minimum, maximum) when an array's ``items`` schema is exactly a bounded integer or number
    (inline or one ``$ref`` to one, like the RSS samples' ``positive_count``), else None."""
    items = _resolved(resolver, items)
    if not isinstance(items, dict) or not set(items) <= _NUMERIC_KEYS or items.get("type") not in ("integer", "number"):
        return None
    bounds = [items.get("minimum"), items.get("maximum")]
    if any(bound is not None and (type(bound) not in (int, float) or bound != bound) for bound in bounds):
        return None
    return items["type"] == "integer", bounds[0], bounds[1]


_RECORD_KEYS = frozenset({"type", "properties", "required", "additionalProperties"})
_STRING_KEYS = frozenset({"type", "minLength", "maxLength", "pattern"})




def _record_items(resolver: Any, items: Any) -> tuple[frozenset[str], tuple[tuple[str, bool, Any, Any], ...],
                                                      tuple[tuple[str, Any, Any, str | None], ...]] | None:
    """(keys, numeric columns, string columns) when an array's ``items`` schema is a flat record: an object with
    exactly the properties it requires and no other (``additionalProperties: false``), each a bounded integer or
    number (as in :func:`_numeric_items`) or a string bounded in length with at most a pattern; else None. Numeric
    columns are ``(key, integers only, minimum, maximum)``, string columns ``(key, minLength, maxLength, pattern)``.
    (The capacity decision's progress signals: 5,318 such records.)"""
    if isinstance(items, dict) and set(items) == {"$ref"}:
        with resolver.resolving(items["$ref"]) as resolved:  # its properties' references are relative to it
            return _record_columns(resolver, resolved)
    return _record_columns(resolver, items)


def _record_columns(resolver: Any, items: Any) -> tuple[frozenset[str], tuple[tuple[str, bool, Any, Any], ...],
                                                        tuple[tuple[str, Any, Any, str | None], ...]] | None:
    if not isinstance(items, dict) or set(items) != _RECORD_KEYS or items["type"] != "object" \
            or items["additionalProperties"] is not False or not isinstance(items["properties"], dict):
        return None
    properties, required = items["properties"], items["required"]
    if not isinstance(required, list) or len(set(required)) != len(required) or set(required) != set(properties):
        return None
    numbers: list[tuple[str, bool, Any, Any]] = []
    strings: list[tuple[str, Any, Any, str | None]] = []
    for key in sorted(properties):
        numeric = _numeric_items(resolver, properties[key])
        if numeric is not None:
            numbers.append((key, *numeric))
            continue
        column = _resolved(resolver, properties[key])
        if not isinstance(column, dict) or not set(column) <= _STRING_KEYS or column.get("type") != "string":
            return None
        low, high, pattern = column.get("minLength"), column.get("maxLength"), column.get("pattern")
        if any(bound is not None and type(bound) is not int for bound in (low, high)) \
                or (pattern is not None and not isinstance(pattern, str)):
            return None
        strings.append((key, low, high, pattern))
    return frozenset(properties), tuple(numbers), tuple(strings)


_BULK_NAME = "_nerb_numbers_within"
_RECORDS_NAME = "_nerb_records_within"
# Prepended to every generated validator: an array of bounded numbers is first checked in C-level passes; only when
# that cannot prove every item valid does the generated per-item loop run (and raise exactly as before).
_BULK_HELPER = f'''
def {_BULK_NAME}(items, integers, minimum, maximum):
    """True only when every item passes the per-item rule: an int (exact type) or, for numbers, an int or float with
    a finite sum (no NaN or infinity), within the bounds. False means: run the per-item checks."""
    kinds = set(map(type, items))
    if not kinds:
        return True
    if integers:
        if kinds != {{int}}:
            return False
    else:
        if not kinds <= {{int, float}}:
            return False
        try:
            total = sum(items, 0.0)
        except OverflowError:
            return False
        if total - total != 0.0:  # NaN or an infinity
            return False
    return (minimum is None or min(items) >= minimum) and (maximum is None or max(items) <= maximum)


def {_RECORDS_NAME}(items, keys, numbers, strings):
    """True only when every item passes the per-item rules of a flat record (see _record_items): a dict (exact type)
    with exactly ``keys``, every numeric column within its bounds ({_BULK_NAME}), every string column made of
    strings whose lengths are within bounds and (each distinct value once) matching the pattern. False means: run
    the per-item checks."""
    if not all(type(item) is dict and item.keys() == keys for item in items):
        return False
    for key, integers, minimum, maximum in numbers:
        if not {_BULK_NAME}([item[key] for item in items], integers, minimum, maximum):
            return False
    for key, shortest, longest, pattern in strings:
        column = [item[key] for item in items]
        if set(map(type, column)) - {{str}}:
            return False
        for value in set(column):
            if (shortest is not None and len(value) < shortest) or (longest is not None and len(value) > longest):
                return False
            if pattern is not None and not pattern.search(value):
                return False
    return True

'''


CACHE_TAG = f"nerb-verify-fastjsonschema-strict-v5/{fastjsonschema.VERSION}/{sys.version_info[:2]}"


def _cache_dir() -> Path | None:
    """Where compiled validators are cached: $NERB_VERIFY_CACHE_DIR, else $XDG_CACHE_HOME or ~/.cache/nerb-verify.

    The cache holds compiled code, so it is used only when the folder belongs to the current user and is not
    writable by group or others (a poisoned cache would run someone else's code). ``NERB_VERIFY_CACHE_DIR=off``
    disables it.
    """
    configured = os.environ.get("NERB_VERIFY_CACHE_DIR")
    if configured == "off":
        return None
    if configured:
        base = Path(configured)
    else:
        xdg = os.environ.get("XDG_CACHE_HOME")
        base = (Path(xdg) if xdg else Path.home() / ".cache") / "nerb-verify"
    try:
        base.mkdir(parents=True, exist_ok=True, mode=0o700)
        info = os.lstat(base)
    except OSError:
        return None
    if not stat.S_ISDIR(info.st_mode) or info.st_uid != os.getuid() or info.st_mode & 0o022:
        return None
    return base


@functools.lru_cache(maxsize=1)
def _store_digest() -> str:
    """Digest of the exact shipped schema files (raw bytes), computed once per process."""
    digest = hashlib.sha256(CACHE_TAG.encode("utf-8"))
    for path in resources.schema_files():
        digest.update(path.name.encode("utf-8") + b"\0" + path.read_bytes() + b"\0")
    return digest.hexdigest()


def _cache_key(file_name: str, opaque: tuple[str, ...] = ()) -> str:
    key = _store_digest() + "/" + file_name + "/" + ",".join(opaque)
    return hashlib.sha256(key.encode("utf-8")).hexdigest()


def _load_cached(path: Path) -> tuple[str, Any] | None:
    try:
        info = os.lstat(path)
        if not stat.S_ISREG(info.st_mode) or info.st_uid != os.getuid() or info.st_mode & 0o022:
            return None
        name, code = marshal.loads(path.read_bytes())
    except (OSError, ValueError, EOFError, TypeError):
        return None
    return (name, code) if isinstance(name, str) else None


def _store_cached(path: Path, name: str, code: Any) -> None:
    import tempfile  # only when a validator is generated (never with the wheel's precompiled validators)

    try:
        handle, temp = tempfile.mkstemp(dir=path.parent, prefix=".tmp-")
        with os.fdopen(handle, "wb") as out:
            out.write(marshal.dumps((name, code)))
        os.replace(temp, path)
    except OSError:
        pass


def _definition(file_name: str, opaque: tuple[str, ...]) -> dict[str, Any]:
    """The schema, with the named top-level properties reduced to "any object" (see :func:`validate`)."""
    definition = schema_by_name(file_name)
    if not opaque:
        return definition
    properties = dict(definition["properties"])
    for name in opaque:
        properties[name] = {"type": "object"}
    return {**definition, "properties": properties}


def _generate(file_name: str, opaque: tuple[str, ...] = ()) -> tuple[str, Any]:
    """Generate the validator with our strict generator and compile it (self-contained module code)."""
    name, source = _generate_source(file_name, opaque)
    return name, compile(source, f"<nerb-verify schema {file_name}>", "exec")


def _generate_source(file_name: str, opaque: tuple[str, ...] = ()) -> tuple[str, str]:
    """(function name, self-contained Python source) of the fastjsonschema validator for one schema variant."""
    store = schema_store()

    def offline(uri: str) -> dict[str, Any]:
        if uri not in store:
            raise SchemaUnavailable(uri)
        return store[uri]

    definition = _definition(file_name, opaque)
    from fastjsonschema.ref_resolver import RefResolver

    resolver = RefResolver.from_schema(definition, handlers={"https": offline}, store={})
    generator = _strict_draft07_generator()(definition, resolver=resolver, formats={}, use_default=False,
                                        detailed_exceptions=True)
    code = _without_eager_names("\n".join([generator.global_state_code, generator.func_code]))
    bulk = _BULK_NAME + "(" in generator.func_code or _RECORDS_NAME + "(" in generator.func_code
    return resolver.get_scope_name(), (_BULK_HELPER + code) if bulk else code


_EAGER_NAME = ".format(**locals())"


def _without_eager_names(source: str) -> str:
    """The generated source without ``.format(**locals())`` on its error-name templates.

    fastjsonschema builds the name of every array item it descends into (``data.x[{data__x_x}]``) with
    ``"...".format(**locals())`` *before* validating the item, 27,000 times for the evidence's RSS samples, a third
    of the evidence's validation time. The name only ever ends up in a JsonSchemaValueException's message, which
    :func:`fast_is_valid` discards (it only asks valid or not; jsonschema explains). Dropping the call leaves the
    template text as the name, so which values are accepted or rejected is unchanged (the parity test runs both
    validators over every fixture).
    """
    return source.replace(_EAGER_NAME, "")


# Schema variants the verifier validates with (the report's performance section may be opaque, see validate()).
PRECOMPILED_VARIANTS: tuple[tuple[str, tuple[str, ...]], ...] = (("nerb.enron_performance_run.v1.json", ("performance",)),)


def _module_name(file_name: str, opaque: tuple[str, ...]) -> str:
    stem = file_name.removesuffix(".json").replace(".", "_").replace("-", "_")
    return "v_" + stem + "".join("__" + part for part in opaque)


def write_precompiled(out: Path) -> list[str]:
    """Write one module per schema (and variant) into ``out``: the validators a wheel ships precompiled.

    Called by setup.py when building the wheel, so the first verification after ``pip install`` does not spend
    0.4 s generating code. Each module records the key of the exact schema set, fastjsonschema and Python version it
    was made for; :func:`fast_validator` uses it only when that key still matches.
    """
    out.mkdir(parents=True, exist_ok=True)
    (out / "__init__.py").write_text('"""Validators generated from schemas/ at wheel build time."""\n', encoding="utf-8")
    variants = [(uri[len(BASE_URI):], ()) for uri in sorted(schema_store()) if uri.startswith(BASE_URI)]
    variants += list(PRECOMPILED_VARIANTS)
    written = []
    for file_name, opaque in variants:
        try:
            name, source = _generate_source(file_name, opaque)
        except SchemaUnavailable:
            continue
        header = f"SCHEMA_KEY = {_cache_key(file_name, opaque)!r}\nFUNCTION = {name!r}\n"
        module = _module_name(file_name, opaque)
        (out / f"{module}.py").write_text(header + source + "\n", encoding="utf-8")
        written.append(module)
    return written


def _precompiled(file_name: str, opaque: tuple[str, ...]) -> Callable[[Any], Any] | None:
    """The validator shipped in the wheel for this schema variant, if present and made for these exact schemas."""
    try:
        module = importlib.import_module(f"nerb_verify._compiled.{_module_name(file_name, opaque)}")
    except ImportError:
        return None
    if getattr(module, "SCHEMA_KEY", None) != _cache_key(file_name, opaque):
        return None
    return getattr(module, module.FUNCTION, None)


@functools.lru_cache(maxsize=None)
def fast_validator(file_name: str, opaque: tuple[str, ...] = ()) -> Callable[[Any], Any]:
    """A compiled fastjsonschema validator for ``schemas/<file_name>`` (references resolved offline).

    Generating and compiling the validators for all artifact kinds takes about 0.4 s, so an installed wheel ships
    them precompiled (:func:`write_precompiled`), and otherwise the compiled code is kept in a per-user cache; both
    are keyed by the exact schema set, fastjsonschema version and Python version.
    """
    shipped = _precompiled(file_name, opaque)
    if shipped is not None:
        return shipped
    cache = _cache_dir()
    cached = _load_cached(cache / (_cache_key(file_name, opaque) + ".marshal")) if cache else None
    if cached is None:
        cached = _generate(file_name, opaque)
        if cache:
            _store_cached(cache / (_cache_key(file_name, opaque) + ".marshal"), *cached)
    name, code = cached
    namespace: dict[str, Any] = {}
    exec(code, namespace)  # noqa: S102 - code generated by fastjsonschema from our own schema files
    return namespace[name]  # type: ignore[no-any-return]


class SchemaError(NamedTuple):
    """One schema violation: instance path (keys and indices) and the failing keyword. Never the value."""

    path: tuple[str | int, ...]
    keyword: str


def explain(file_name: str, instance: Any, limit: int = 100) -> list[SchemaError]:
    """Every violation jsonschema reports (at most ``limit``), sorted by path then keyword."""
    validator = strict_validator_class()(schema_by_name(file_name), registry=registry())
    errors: list[SchemaError] = []
    for error in _iter_leaf_errors(validator.iter_errors(instance)):
        errors.append(SchemaError(tuple(error.absolute_path), str(error.validator)))
        if len(errors) >= limit:
            break
    return sorted(set(errors), key=lambda e: ([str(p) for p in e.path], e.keyword))


def _iter_leaf_errors(errors: Iterator[jsonschema.ValidationError]) -> Iterator[jsonschema.ValidationError]:
    """Replace an anyOf/oneOf failure by its most relevant branch error (jsonschema's ``best_match``).

    A nullable field is ``anyOf: [X, null]``; a zero timeout should be reported as ``exclusiveMinimum``, the rule
    that actually failed, not as "matches no alternative".
    """
    for error in errors:
        while error.validator in ("anyOf", "oneOf") and error.context:
            # Prefer a branch that failed on something other than its type (the branch the value was meant for),
            # then the deepest error within it.
            branches = [e for e in error.context if e.validator != "type"] or list(error.context)
            error = max(branches, key=lambda e: len(e.relative_path))
        yield error


def fast_is_valid(file_name: str, instance: Any, opaque: tuple[str, ...] = ()) -> bool:
    """True when the fastjsonschema validator accepts ``instance``."""
    try:
        fast_validator(file_name, opaque)(instance)
    except fastjsonschema.JsonSchemaValueException:
        return False
    return True


def validate(file_name: str, instance: Any, opaque: tuple[str, ...] = ()) -> list[SchemaError]:
    """Validate with the fast path; explain with jsonschema only when the fast path rejects.

    ``opaque`` names top-level properties whose content the caller has already validated elsewhere (the performance
    report's ``performance`` section when it is byte-for-byte the evidence's): they are checked only to be objects,
    which saves validating 50,000 values twice. If the fast path rejects, the full schema explains.

    If the two libraries ever disagree (fast rejects but jsonschema finds nothing), a single error at the root with
    keyword ``parity`` is returned: fail closed rather than trust either alone.
    """
    if BASE_URI + file_name not in schema_store():
        raise SchemaUnavailable(file_name)
    if fast_is_valid(file_name, instance, opaque):
        return []
    from referencing import exceptions as referencing_exceptions

    try:
        errors = explain(file_name, instance)
    except referencing_exceptions.Unresolvable as exc:
        raise SchemaUnavailable(file_name) from exc
    return errors or [SchemaError((), "parity")]
