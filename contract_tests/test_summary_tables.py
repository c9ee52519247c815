"""Table-class tracing in summary.md (summary.number_misplaced): which class a table cell speaks for."""

from __future__ import annotations

import pytest
from hypothesis import given
from hypothesis import strategies as st

from nerb_verify.checks.presentation.summary import cell_class, class_of_label, table_classes


@pytest.mark.parametrize("label,expected", [
    ("Combined", "person_contact"), ("**Combined**", "person_contact"), ("All classes", "person_contact"),
    ("Contact", "contact"), ("Contacts", "contact"), ("`contact`", "contact"), ("Person", "person"),
    ("Persons", "person"), ("People", "person"), ("Combined panel", "person_contact"),
    ("Contract evidence", None), ("Application metric", None), ("Frozen requirement", None), ("", None),
    ("Person names in the bank and more", None),
])
def test_class_of_label(label, expected):
    assert class_of_label(label) == expected


def test_rows_and_columns_name_their_class():
    text = ("| Metric | Combined | Contacts | Person | Requirement |\n"
            "|---|---:|---:|---:|---:|\n"
            "| Precision | 95.30% | 95.31% | 95.24% | diagnostic |\n"
            "\n"
            "| Class | Gold |\n|---|---:|\n| Contact | 126 |\n")
    rows = table_classes(text)
    line = text.split("\n")[2]
    assert cell_class(rows, 3, line.index("95.30") + 1) == "person_contact"
    assert cell_class(rows, 3, line.index("95.31") + 1) == "contact"
    assert cell_class(rows, 3, line.index("95.24") + 1) == "person"
    assert cell_class(rows, 3, line.index("diagnostic") + 1) is None
    assert cell_class(rows, 7, 13) == "contact"  # the row label wins in a class row
    assert 1 not in rows and 5 not in rows  # header rows and prose have no cells


@given(st.text(alphabet="|-: abcCombinedPersonContact*\n0123456789%", max_size=400),
       st.integers(1, 30), st.integers(1, 80))
def test_table_parsing_never_raises(text, line, column):
    cell_class(table_classes(text), line, column)
