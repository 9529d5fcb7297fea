"""Write book/api.md: every public name of dynlib, grouped by module, documented under ``dynlib.<name>``.

Run after adding or removing a public function: ``.venv/bin/python tools/make_api_page.py``
(tests/test_docs.py fails while the page is out of date).
"""

import importlib
import pathlib

SECTIONS = [
    ("spatial", "Spatial vectors and Plücker transforms"),
    ("conventions", "Orders and planar components"),
    ("inertia", "Spatial inertia"),
    ("rotations", "Rotations and quaternions"),
    ("liegroup", "The Lie group SE(3)"),
    ("screws", "Screws"),
    ("projective", "Planar points, lines and percussion"),
    ("decompositions", "Subspace decompositions of a joint"),
    ("joints", "Joints"),
    ("model", "The model"),
    ("builders", "Model builders"),
    ("urdf", "Robots from URDF files"),
    ("mechanisms", "Closed mechanisms"),
    ("kinematics", "Kinematics"),
    ("energy", "Energy and momentum"),
    ("inverse_dynamics", "Inverse dynamics"),
    ("mass_matrix", "Mass matrix"),
    ("articulated", "Articulated-body and hybrid dynamics"),
    ("body_frame", "Kim's body-frame recursions"),
    ("mobility", "Articulated mobility and chain splitting"),
    ("impulse", "Impulses"),
    ("constraints", "Loop constraints"),
    ("constrained_dynamics", "Constrained dynamics"),
    ("simulation", "Simulation"),
    ("checks", "Comparisons for checks"),
    ("listing", "Showing the library's source"),
    ("plotting", "Drawing (``dynlib.plotting``)"),
    ("widgets", "Interactive explorers (``dynlib.widgets``)"),
    ("exercises", "Feedback for exercises (``dynlib.exercises``)"),
]
SUBMODULES = {"plotting", "widgets", "exercises"}  # imported on their own, not re-exported by dynlib

INTRO = """# API reference

Every public function and class of `dynlib`, generated from the docstrings that the tests
run. Each entry gives shapes, the equation it implements and the source-note equations it
follows; the [notation page](notation.md) fixes the conventions. With `import dynlib as dl`
everything below is `dl.<name>`, except the drawing helpers of `dynlib.plotting` and the
exercise checks of `dynlib.exercises`.
"""


def page():
    parts = [INTRO]
    for module_name, title in SECTIONS:
        module = importlib.import_module(f"dynlib.{module_name}")
        namespace = f"dynlib.{module_name}" if module_name in SUBMODULES else "dynlib"
        parts.append(f"\n## {title}\n\n```{{eval-rst}}\n.. automodule:: dynlib.{module_name}\n   :no-members:\n\n"
                     f".. currentmodule:: {namespace}\n")
        for name in module.__all__:
            obj = getattr(module, name)
            if not callable(obj):
                continue
            if isinstance(obj, type):
                parts.append(f"\n.. autoclass:: {name}\n   :members:\n")
            else:
                parts.append(f"\n.. autofunction:: {name}\n")
        parts.append("```\n")
    return "".join(parts)


if __name__ == "__main__":
    path = pathlib.Path(__file__).resolve().parents[1] / "book" / "api.md"
    path.write_text(page())
    print(f"wrote {path}")
