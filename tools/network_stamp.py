"""What made a trained network file, written into its ONNX metadata, and whether two files hold the same network.

Training is deterministic (``cardref vision train``: fixed seeds, fixed thread count), but only for the same
arithmetic: the training data is drawn with OpenCV and NumPy, and the weights are computed by PyTorch, so another
version of any of them makes another network from the same command (session 37: under OpenCV 4.14 instead of 5.1 the
finder's training scenes, targets and surfaces all came out otherwise). Each file therefore says which seed and which
versions made it, so that ``cardref vision train --check`` can tell a rerun that differs because the machine differs
from one that differs because the recipe does.
"""

from __future__ import annotations

import platform

import cv2
import numpy as np

SEED = "cardref.seed"
MADE_WITH = "cardref.made_with"


def versions() -> str:
    """The versions whose arithmetic shapes a trained network: Python, NumPy, OpenCV, PyTorch, onnx."""
    import onnx
    import torch

    return (f"python {platform.python_version()}, numpy {np.__version__}, opencv {cv2.__version__}, "
            f"torch {torch.__version__}, onnx {onnx.__version__}")


def stamp(path: str, seed: int) -> None:
    """Write ``seed`` and this machine's ``versions`` into the ONNX file ``path``'s metadata."""
    import onnx

    model = onnx.load(path)
    del model.metadata_props[:]
    for key, value in ((SEED, str(seed)), (MADE_WITH, versions())):
        model.metadata_props.add(key=key, value=value)
    onnx.save(model, path)


def read(path: str) -> dict[str, str]:
    """The ONNX file ``path``'s metadata (empty for a file made before the stamp)."""
    import onnx

    return {p.key: p.value for p in onnx.load(path).metadata_props}


def same_network(a: str, b: str) -> bool:
    """Whether the ONNX files ``a`` and ``b`` hold the same graph and the same weights, bit for bit (their stamps
    and producer strings aside)."""
    import onnx

    ma, mb = onnx.load(a), onnx.load(b)
    for m in (ma, mb):
        del m.metadata_props[:]
        m.producer_version = ""
    return bool(ma.SerializeToString() == mb.SerializeToString())
