"""Models exported by torch.onnx.export (TorchScript exporter); skipped without torch.

torch is a test-only, optional dependency (`pip install torch==2.13.0` gives a CPU build).
"""

from __future__ import annotations

import io
import warnings
from typing import Any

import onnx
import pytest

from helpers.onnx_testing import check_numerics, op_names

torch = pytest.importorskip("torch")


def _export(module: Any, args: tuple[Any, ...], opset: int, **kwargs: Any) -> onnx.ModelProto:
    buffer = io.BytesIO()
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        torch.onnx.export(module.eval(), args, buffer, dynamo=False, opset_version=opset, **kwargs)
    return onnx.load_from_string(buffer.getvalue())


class _MobileNetBlock(torch.nn.Module):
    def __init__(self) -> None:
        super().__init__()
        self.stem = torch.nn.Conv2d(3, 8, 3, stride=2, padding=1)
        self.bn = torch.nn.BatchNorm2d(8)
        self.depthwise = torch.nn.Conv2d(8, 8, 3, groups=8)
        self.pointwise = torch.nn.Conv2d(8, 16, 1)
        self.fc = torch.nn.Linear(16, 10)

    def forward(self, x: Any) -> Any:
        x = torch.nn.functional.relu6(self.bn(self.stem(x)))
        x = torch.nn.functional.pad(x, (1, 1, 1, 1))
        x = torch.nn.functional.relu6(self.depthwise(x))
        x = torch.relu(self.pointwise(x))
        x = torch.nn.functional.adaptive_avg_pool2d(x, 1)
        return self.fc(x.view(x.size(0), -1))


@pytest.mark.parametrize("opset", [11, 13, 17])
def test_torch_mobilenet_block(opset: int) -> None:
    torch.manual_seed(0)
    x = torch.randn(1, 3, 32, 32)
    model = _export(_MobileNetBlock(), (x,), opset)
    assert {"Shape", "Gather", "ConstantOfShape", "Pad", "Clip"} <= {
        n.op_type for n in model.graph.node
    }
    module = check_numerics(model, {model.graph.input[0].name: x.numpy()}, rtol=1e-4, atol=1e-5)
    assert op_names(module) == [
        "graph.conv2d",
        "graph.clip",
        "graph.pad",
        "graph.conv2d",
        "graph.clip",
        "graph.conv2d",
        "graph.relu",
        "graph.global_avg_pool2d",
        "graph.reshape",
        "graph.dense",
    ]


@pytest.mark.parametrize("opset", [14, 17])  # scaled_dot_product_attention needs opset 14
def test_torch_transformer_encoder_layer(opset: int) -> None:
    torch.manual_seed(0)
    layer = torch.nn.TransformerEncoderLayer(
        d_model=16, nhead=4, dim_feedforward=32, activation="gelu", batch_first=True, dropout=0.1
    )
    x = torch.randn(2, 5, 16)
    mask = torch.zeros(2, 5, dtype=torch.bool)
    mask[1, 3:] = True
    model = _export(layer, (x, None, mask), opset, input_names=["x", "mask"])
    feeds = {i.name: a for i, a in zip(model.graph.input, (x.numpy(), mask.numpy()))}
    module = check_numerics(model, feeds, rtol=1e-4, atol=1e-5)
    names = op_names(module)
    assert names.count("graph.softmax") == 1 and "graph.erf" in names
    assert ("graph.layer_norm" in names) == (opset >= 17)
    # The shape arithmetic (Shape, Cast, Mod, Concat, ConstantOfShape) is folded away.
    assert not {"graph.cast", "graph.mod", "tensor.concat"} & set(names)
    onnx_ops = [n.op_type for n in model.graph.node]
    assert {"Shape", "Cast", "Mod", "Concat", "ConstantOfShape"} <= set(onnx_ops)
