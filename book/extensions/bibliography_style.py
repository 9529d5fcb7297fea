"""Sphinx extension: bibliography labels in the same author-year form as the citations.

The chapters cite as "[Featherstone, 2008]" (``bibtex_reference_style: author_year``); with pybtex's
plain style the bibliography would number its entries [1]-[19], so a reader could not find a
citation in it.  The ``authoryear`` style (``bibtex_default_style``) formats entries as ``plain``
does, sorted by these labels, and labels each one as it is cited: the authors' last names ("Lynch and
Park", "Murray et al." for three or more) and the year, or "n.d." without one.
"""

from pybtex.plugin import register_plugin
from pybtex.richtext import Text
from pybtex.style.formatting.plain import Style as PlainStyle
from pybtex.style.labels import BaseLabelStyle
from pybtex.style.sorting import BaseSortingStyle


def last_names(person):
    """A person's last names as printed (without BibTeX's protective braces)."""
    return " ".join(str(Text.from_latex(part)) for part in person.prelast_names + person.last_names)


def author_year(entry):
    """The label of one entry: "Featherstone, 2008", "Lynch and Park, 2017", "Murray et al., 1994"."""
    persons = entry.persons.get("author") or entry.persons.get("editor") or []
    names = [last_names(person) for person in persons]
    if len(names) >= 3:
        who = f"{names[0]} et al."
    else:
        who = " and ".join(names) or str(Text.from_latex(entry.fields.get("title", entry.key)))
    return f"{who}, {entry.fields.get('year', 'n.d.')}"


class AuthorYearLabels(BaseLabelStyle):
    def format_labels(self, sorted_entries):
        for entry in sorted_entries:
            yield author_year(entry)


class AuthorYearSorting(BaseSortingStyle):
    """Entries in the order of their labels (so corporate authors file under their first letter too)."""

    def sorting_key(self, entry):
        return author_year(entry).lower()


class AuthorYearStyle(PlainStyle):
    default_label_style = "authoryear"
    default_sorting_style = "authoryear"


def setup(app):
    register_plugin("pybtex.style.labels", "authoryear", AuthorYearLabels)
    register_plugin("pybtex.style.sorting", "authoryear", AuthorYearSorting)
    register_plugin("pybtex.style.formatting", "authoryear", AuthorYearStyle)
    return {"parallel_read_safe": True, "parallel_write_safe": True}
