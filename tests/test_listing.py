"""show_source lists the library's code as a fenced block, and refuses what has no source."""

import pytest

import dynlib as dl


def test_several_functions_are_listed_in_order():
    text = dl.show_source(dl.rnea, dl.bias_forces).data
    assert text.startswith("```python\ndef rnea(") and text.endswith("```")
    assert text.index("def rnea(") < text.index("def bias_forces(")


def test_what_is_not_a_function_or_class_is_refused():
    with pytest.raises(TypeError, match="functions and classes, got int"):
        dl.show_source(3)
    with pytest.raises(ValueError, match="at least one"):
        dl.show_source()
