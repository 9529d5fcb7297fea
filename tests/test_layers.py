"""The package's folders are layers: each module imports only from its own folder and those below.

core < spatial < multibody < algorithms < course; and no module imports a private name
(``_something``) from another module.
"""

import ast
import pathlib

import pytest

import dynlib

PACKAGE = pathlib.Path(dynlib.__file__).parent
LAYERS = ["core", "spatial", "multibody", "algorithms", "course"]
MODULES = sorted(p for p in PACKAGE.rglob("*.py") if p.parent != PACKAGE)


def imports(path):
    """(module it names, imported names) for every relative import of a dynlib module."""
    package = path.parent.relative_to(PACKAGE.parent).parts  # ('dynlib', 'spatial')
    for node in ast.walk(ast.parse(path.read_text())):
        if isinstance(node, ast.ImportFrom) and node.level:
            base = package[: len(package) - node.level + 1]
            target = ".".join(base + tuple(node.module.split("."))) if node.module else ".".join(base)
            yield target, [alias.name for alias in node.names]


@pytest.mark.parametrize("path", MODULES, ids=lambda p: str(p.relative_to(PACKAGE)))
def test_a_module_imports_only_from_its_layer_and_below(path):
    layer = LAYERS.index(path.relative_to(PACKAGE).parts[0])
    for target, _ in imports(path):
        parts = target.split(".")
        assert parts[0] == "dynlib" and len(parts) >= 2, target
        assert LAYERS.index(parts[1]) <= layer, f"{path.relative_to(PACKAGE)} imports {target}, a higher layer"


@pytest.mark.parametrize("path", MODULES, ids=lambda p: str(p.relative_to(PACKAGE)))
def test_no_private_name_crosses_a_module_boundary(path):
    for target, names in imports(path):
        private = [name for name in names if name.startswith("_") and name != "__version__"]
        assert not private, f"{path.relative_to(PACKAGE)} imports {private} from {target}"


@pytest.mark.parametrize("package", ["dynlib"] + [f"dynlib.{layer}" for layer in LAYERS])
def test_every_package_declares_its_public_names(package):
    module = __import__(package, fromlist=["__all__"])
    assert module.__all__ and all(hasattr(module, name) for name in module.__all__)
    assert len(set(module.__all__)) == len(module.__all__)
