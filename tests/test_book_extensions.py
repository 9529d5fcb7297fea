"""The small Sphinx extensions of the book: API entries and bibliography labels."""

import sys
from collections import namedtuple
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT / "book" / "extensions"))

import api_reference  # noqa: E402
import bibliography_style  # noqa: E402


def test_named_tuple_fields_are_not_listed_again_with_their_generated_docstring():
    import dynlib as dl

    Pair = namedtuple("Pair", "a b")
    skip = api_reference.skip_generated_field
    assert skip(None, "attribute", "a", Pair.a, False, {}) is True
    assert skip(None, "attribute", "pitch", dl.Screw.pitch, False, {}) is True
    assert skip(None, "function", "rnea", dl.rnea, False, {}) is None        # documented: autodoc decides


def test_bibliography_labels_read_as_the_citations_do():
    from pybtex.database import parse_file

    entries = parse_file(str(ROOT / "book" / "references.bib")).entries
    labels = {key: bibliography_style.author_year(entry) for key, entry in entries.items()}
    assert labels["featherstone2008rbda"] == "Featherstone, 2008"
    assert labels["lynch2017modern"] == "Lynch and Park, 2017"
    assert labels["murray1994mathematical"] == "Murray et al., 1994"
    assert labels["lecture4multibody"] == "Multibody Dynamics course, n.d."
    assert len(set(labels.values())) == len(labels)                          # a citation finds one entry
    ordered = sorted(entries.values(), key=bibliography_style.AuthorYearSorting().sorting_key)
    assert [bibliography_style.author_year(e)[0] for e in ordered] == sorted(l[0] for l in labels.values())
