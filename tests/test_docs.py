"""Documentation rules: every public function has a numpydoc docstring, every module names its chapter."""

import inspect
import pkgutil
import types

import pytest

import dynlib as dl

PUBLIC = sorted(
    name
    for name in dir(dl)
    if not name.startswith("_") and callable(getattr(dl, name)) and not isinstance(getattr(dl, name), types.ModuleType)
)


@pytest.mark.parametrize("name", PUBLIC)
def test_public_callables_have_numpydoc_sections(name):
    obj = getattr(dl, name)
    doc = inspect.getdoc(obj) or ""
    if inspect.isclass(obj):
        assert "Parameters" in doc or "Attributes" in doc, f"{name}: class docstring lacks Parameters/Attributes"
        return
    assert "Returns" in doc, f"{name}: docstring lacks a Returns section"
    if inspect.signature(obj).parameters:
        assert "Parameters" in doc, f"{name}: docstring lacks a Parameters section"


@pytest.mark.parametrize("module", [m.name for m in pkgutil.iter_modules(dl.__path__) if not m.name.startswith("_")])
def test_modules_name_their_chapter_and_sources(module):
    doc = inspect.getdoc(__import__(f"dynlib.{module}", fromlist=["_"])) or ""
    assert "Chapter:" in doc, f"dynlib.{module}: module docstring should name the chapter it serves"
