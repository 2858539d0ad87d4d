"""tp-profile's helpers: node names from (fused) locations, graph ops from kernel names."""

from __future__ import annotations

from mlir import ir

from mlc.passes.tp_profile import graph_ops, node_names


def test_node_names_from_locations() -> None:
    with ir.Context():
        odd = ir.Location.name('conv "a"\\1 é')  # MLIR prints these escaped; the API does not
        fused = ir.Location.fused([odd, ir.Location.name("relu_a")])
        assert node_names(fused) == ['conv "a"\\1 é', "relu_a"]
        assert node_names(ir.Location.unknown()) == []


def test_graph_ops_from_kernel_names() -> None:
    assert graph_ops("fused_conv2d_relu_2") == ["conv2d", "relu"]
    assert graph_ops("fused_layout_transform_flatten_13") == ["layout_transform", "flatten"]
    assert graph_ops("fused_add_mul_sigmoid_etc_4") == ["add", "mul", "sigmoid"]
    assert graph_ops("fused_copy_0") == ["copy"]
