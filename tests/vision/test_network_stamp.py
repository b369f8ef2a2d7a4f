"""A trained network file says what made it, and two files are compared by their network, not by their stamps."""

from __future__ import annotations

import numpy as np
import pytest

from tools import network_stamp

# (the training tools' own libraries: installed with the 'train' extra, as on the machine that trains)
onnx = pytest.importorskip("onnx", reason="the 'train' extra (onnx, PyTorch) is not installed")
pytest.importorskip("torch", reason="the 'train' extra (onnx, PyTorch) is not installed")
from onnx import helper, numpy_helper  # noqa: E402


def _network(path: str, weight: float) -> str:
    w = numpy_helper.from_array(np.full((1, 3), weight, np.float32), "w")
    graph = helper.make_graph([helper.make_node("Add", ["x", "w"], ["y"])], "tiny",
                              [helper.make_tensor_value_info("x", onnx.TensorProto.FLOAT, [1, 3])],
                              [helper.make_tensor_value_info("y", onnx.TensorProto.FLOAT, [1, 3])], [w])
    onnx.save(helper.make_model(graph, producer_name="pytorch", producer_version="2.13.0"), path)
    return path


def test_the_stamp_names_the_seed_and_the_versions_and_leaves_the_network(tmp_path):
    made = _network(str(tmp_path / "a.onnx"), 0.5)
    other_machine = _network(str(tmp_path / "b.onnx"), 0.5)
    assert network_stamp.read(made) == {}
    network_stamp.stamp(made, 7)
    stamp = network_stamp.read(made)
    assert stamp[network_stamp.SEED] == "7"
    assert "opencv " in stamp[network_stamp.MADE_WITH] and "torch " in stamp[network_stamp.MADE_WITH]
    # the same weights made under another PyTorch, unstamped: the same network
    model = onnx.load(other_machine)
    model.producer_version = "2.14.1"
    onnx.save(model, other_machine)
    assert network_stamp.same_network(made, other_machine)
    # a stamp written again replaces the old one
    network_stamp.stamp(made, 8)
    assert network_stamp.read(made)[network_stamp.SEED] == "8" and len(onnx.load(made).metadata_props) == 2


def test_one_weight_apart_is_another_network(tmp_path):
    a = _network(str(tmp_path / "a.onnx"), 0.5)
    b = _network(str(tmp_path / "b.onnx"), float(np.nextafter(np.float32(0.5), np.float32(1))))
    assert not network_stamp.same_network(a, b)


def test_check_says_whether_the_command_makes_the_file(tmp_path, capsys):
    """``cardref vision train --check``: a tiny finder (8 scenes, 2 steps, no photos) trained twice is the same
    network bit for bit (exit 0); against the checked-in finder it is not, and the answer names what made each."""
    from cli.main import main

    tiny = ["vision", "train", "--only", "finder", "--scenes", "8", "--steps", "2", "--photos", str(tmp_path / "none")]
    made = str(tmp_path / "finder_net.onnx")
    assert main(tiny + ["--finder-out", made]) == 0
    assert network_stamp.read(made)[network_stamp.SEED] == "1"
    capsys.readouterr()
    assert main(tiny + ["--check", "--finder-out", made]) == 0
    assert f"finder: the same network as {made}, bit for bit" in capsys.readouterr().out
    assert main(tiny + ["--check"]) == 1
    out = capsys.readouterr().out
    assert "finder: NOT the network at" in out and "this machine has:  python" in out
    # another seed of the same recipe is another network
    assert main(tiny + ["--check", "--finder-out", made, "--finder-seed", "2"]) == 1


def test_check_names_a_missing_file_before_it_trains(tmp_path, capsys):
    from cli.main import main

    missing = str(tmp_path / "finder_net.onnx")
    assert main(["vision", "train", "--only", "finder", "--check", "--finder-out", missing]) == 2
    captured = capsys.readouterr()
    assert f"no finder network to compare with at {missing}" in captured.err and "sources:" not in captured.err
