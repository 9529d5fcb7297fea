"""The kernels: the loops over the bodies of one state that the chapters list, which trust their input.

Each algorithm of dynlib has a *door* (``dynlib.rnea``), which checks its inputs once, and a *kernel*
(``dynlib.kernels.rnea_passes``), which does not: wrong shapes, a configuration one entry too long or
a quaternion that is not unit length give a wrong answer or an error from deep inside, never a message
that says what was wrong.  Call the doors; the kernels are here to be read (``dl.show_source``), taken
apart in the exercises, and called only on what a door has checked (``check_state``).

Their arguments are the model's arrays (``model.arrays``) and the joint-space vectors of one state;
their 6-vectors are world-frame coordinates about the reference point of
:func:`~dynlib.kernels.reference_point` (the origin of body 0's frame), not about the world origin.

Chapter: every chapter that lists an algorithm (the kernels are the listings).
"""

from .core.compile import public_kernels
from .multibody.model import reference_point

# the kernels are the functions marked @kernel in the layers below, listed nowhere else
globals().update({function.__name__: function for function in public_kernels()})
__all__ = [reference_point.__name__] + [function.__name__ for function in public_kernels()]
