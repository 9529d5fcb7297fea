"""dynlib: articulated rigid-body dynamics in plain numpy, exact with sympy, compiled where it pays.

One convention throughout: 6-vectors are linear part first (``[v_O; w]``, ``[f; n_O]``) in world
coordinates about the world origin; bodies are numbered so that ``parent[i] < i``.  See the book's
notation page.

The package is layered, each folder importing only from those above it in this list:

- ``dynlib.core``: numbers and symbols (the float/sympy dispatch, input checks, the compiler hook);
- ``dynlib.spatial``: 6-vector algebra, rotations, SE(3), screws, projective geometry, inertia (Part I);
- ``dynlib.multibody``: joints, the Model, builders, URDF, kinematics, loop closures, mechanisms;
- ``dynlib.algorithms``: inverse dynamics, mass matrix, articulated inertia and mobility, impulses,
  constrained dynamics, energy, simulation (Parts II-III);
- ``dynlib.course``: figures, explorers, listings and exercise feedback for the book.

Every function and class of the first four layers is re-exported here, ``import dynlib as dl;
dl.rnea(...)``, and each of them checks its input; the kernels, which trust theirs, are in
``dynlib.kernels`` (``dl.kernels.rnea_passes``).
"""

from . import algorithms, course, kernels, multibody, spatial
from .algorithms import *  # noqa: F403
from .course.checks import *  # noqa: F403
from .course.listing import *  # noqa: F403
from .multibody import *  # noqa: F403
from .spatial import *  # noqa: F403

__version__ = "0.2.0"

# every public name is listed once, in its module's __all__
__all__ = [*spatial.__all__, *multibody.__all__, *algorithms.__all__, *course.checks.__all__, *course.listing.__all__]
