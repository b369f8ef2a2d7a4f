"""The features a rectified card is compared by (``vision.features``)."""

import cv2
import numpy as np
import pytest

from tools import synth
from vision import features, geometry


def _all_moves(card: np.ndarray) -> np.ndarray:
    """``face_feature`` of ``card`` at every move ``aligned_face`` chooses among, in colour (rows, in
    ``features.moved_faces``' order)."""
    fw, fh = features.FACE_SIZE
    moved = features.moved_faces(features._blurred_face(card, (2 * fw, 2 * fh)), card.shape[1] - 8)
    return np.stack([features._norm(f) for f in np.split(moved, len(moved) // fh)])


@pytest.mark.parametrize(("dx", "dy", "scale"), [(2, -2, 1.0), (4, 0, 1.0), (0, 4, 1.0), (-2, 2, 1.03), (0, 0, 0.97)])
def test_a_face_moved_is_found_among_the_moved_faces_at_its_move(decks_dir, dx, dy, scale):
    """``moved_faces`` samples the face moved by each small scale and shift from one blurred picture of it: the
    face of the card really moved so is nearest the row of that move, and nearly equal to it."""
    card = features.canonical_card(synth.load_deck(str(decks_dir / "simplistic"))["7D"])
    faces = _all_moves(card)
    moves = [(s, y, x) for s in features.ALIGN_SCALES for y in features.ALIGN_SHIFTS for x in features.ALIGN_SHIFTS]
    assert len(faces) == len(moves) and moves[len(moves) // 2] == (1.0, 0, 0)
    assert float(faces[len(moves) // 2] @ features.face_feature(card)) > 0.999
    m = np.float32([[scale, 0, dx + (1 - scale) * geometry.CW / 2], [0, scale, dy + (1 - scale) * geometry.CH / 2]])
    moved = cv2.warpAffine(card, m, (geometry.CW, geometry.CH), borderMode=cv2.BORDER_REPLICATE)
    corr = faces @ features.face_feature(moved)
    assert moves[int(np.argmax(corr))] == (scale, dy, dx)
    assert corr.max() > 0.95


def test_the_face_aligned_towards_a_template_is_the_move_nearest_it(decks_dir):
    """``aligned_face``: of the moves of ``moved_faces``, the one that fits the template face best (chosen in grey),
    sampled in colour - a card moved 4 px is brought back to within a move of its own template."""
    card = features.canonical_card(synth.load_deck(str(decks_dir / "simplistic"))["7D"])
    template = features.face_feature(card)
    m = np.float32([[1, 0, 4], [0, 1, -2]])
    moved = cv2.warpAffine(card, m, (geometry.CW, geometry.CH), borderMode=cv2.BORDER_REPLICATE)
    assert float(features.face_feature(moved) @ template) < 0.9
    back = features.aligned_face(moved, template)
    assert float(back @ template) > 0.98
    assert float(back @ template) >= float((_all_moves(moved) @ template).max()) - 0.01
