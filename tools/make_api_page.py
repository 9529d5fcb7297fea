"""Write book/api.md: every public name of dynlib, grouped by module, documented under ``dynlib.<name>``.

Run after adding or removing a public function: ``.venv/bin/python tools/make_api_page.py``
(tests/test_docs.py fails while the page is out of date).
"""

import importlib
import pathlib

SECTIONS = [
    ("dynlib.spatial.algebra", "Spatial vectors and Plücker transforms"),
    ("dynlib.spatial.conventions", "Orders and planar components"),
    ("dynlib.spatial.inertia", "Spatial inertia"),
    ("dynlib.spatial.rotations", "Rotations and quaternions"),
    ("dynlib.spatial.liegroup", "The Lie group SE(3)"),
    ("dynlib.spatial.screws", "Screws"),
    ("dynlib.spatial.projective", "Planar points, lines and percussion"),
    ("dynlib.spatial.decompositions", "Subspace decompositions of a joint"),
    ("dynlib.multibody.joints", "Joints"),
    ("dynlib.multibody.model", "The model and its states"),
    ("dynlib.multibody.builders", "Model builders"),
    ("dynlib.multibody.urdf", "Robots from URDF files"),
    ("dynlib.multibody.kinematics", "Kinematics"),
    ("dynlib.multibody.loops", "Loop constraints"),
    ("dynlib.multibody.mechanisms", "Closed mechanisms"),
    ("dynlib.algorithms.energy", "Energy and momentum"),
    ("dynlib.algorithms.inverse_dynamics", "Inverse dynamics"),
    ("dynlib.algorithms.mass_matrix", "Mass matrix"),
    ("dynlib.algorithms.articulated", "Articulated-body and hybrid dynamics"),
    ("dynlib.algorithms.derivatives", "Derivatives of the dynamics"),
    ("dynlib.algorithms.regressor", "Inertial parameters and regressors"),
    ("dynlib.algorithms.identification", "Identification and physical consistency"),
    ("dynlib.algorithms.body_frame", "Kim's body-frame recursions"),
    ("dynlib.algorithms.mobility", "Articulated mobility and chain splitting"),
    ("dynlib.algorithms.impulse", "Impulses"),
    ("dynlib.algorithms.constrained_dynamics", "Constrained dynamics"),
    ("dynlib.algorithms.simulation", "Simulation"),
    ("dynlib.algorithms.warm_up", "Compiling the kernels"),
    ("dynlib.course.checks", "Comparisons for checks"),
    ("dynlib.course.listing", "Showing the library's source"),
    ("dynlib.course.plotting", "Drawing (``dynlib.course.plotting``)"),
    ("dynlib.course.widgets", "Interactive explorers (``dynlib.course.widgets``)"),
    ("dynlib.course.exercises", "Feedback for exercises (``dynlib.course.exercises``)"),
    ("dynlib.kernels", "Kernels (``dynlib.kernels``): they trust their input"),
]
# not in dl.*
SUBMODULES = {"dynlib.course.plotting", "dynlib.course.widgets", "dynlib.course.exercises", "dynlib.kernels"}

INTRO = """# API reference

Every public function and class of `dynlib`, generated from the docstrings that the tests
run. Each entry gives shapes, the equation it implements and the source-note equations it
follows; the [notation page](notation.md) fixes the conventions. The library is layered:
`dynlib.spatial` (Part I), `dynlib.multibody` (models and kinematics), `dynlib.algorithms`
(Parts II-IV) and `dynlib.course` (the book's tools), each importing only from those before it.
With `import dynlib as dl` everything below is `dl.<name>`, except the drawing helpers of
`dynlib.course.plotting`, the explorers of `dynlib.course.widgets`, the exercise checks of
`dynlib.course.exercises` and the kernels of `dynlib.kernels`.

An algorithm has a *door* (``dl.rnea``: it checks its inputs once, handles batches and symbols)
and a *kernel* (``dl.kernels.rnea_passes``: the loop over bodies of one state that the chapter lists,
run as Python for sympy and for floats until it is used often, then compiled).  Every function at the
top level checks its input; the kernels trust theirs, and are documented last.
"""


def page():
    parts = [INTRO]
    for module_name, title in SECTIONS:
        module = importlib.import_module(module_name)
        namespace = module_name if module_name in SUBMODULES else "dynlib"
        parts.append(f"\n## {title}\n\n```{{eval-rst}}\n.. automodule:: {module_name}\n   :no-members:\n\n"
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
