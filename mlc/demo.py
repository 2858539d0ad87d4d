"""`make demo`: compile and run ResNet-50 like a user would, with the CLI.

The model is the light ResNet-50 that ships with the `onnx` wheel, with seeded random weights
(nothing can be downloaded here). The demo runs `mlc compile` and then `mlc run` with the
timing table, the top-5 classes and a check against onnxruntime, printing each command first.
"""

from __future__ import annotations

import pathlib
import shlex
import sys

from mlc.driver import _main as mlc

BUILD = pathlib.Path("build") / "demo"


def _step(argv: list[str]) -> int:
    print(f"\n$ mlc {shlex.join(argv)}", flush=True)
    code = mlc(argv)
    sys.stdout.flush()
    if code:
        print(f"(exit status {code})", file=sys.stderr)
    return code


def main() -> int:
    from mlc.frontend.onnx.zoo import save_light_model

    model = save_light_model("resnet50", BUILD / "resnet50.onnx", seed=0)
    print(f"wrote {model} (the onnx wheel's light ResNet-50, seeded random weights)")
    package = BUILD / "resnet50.tar"
    return _step(["compile", str(model), "-o", str(package), "--threads", "2"]) or _step(
        [
            "run",
            str(package),
            "--print-time",
            "--repeat",
            "10",
            "--print-top",
            "5",
            "--verify",
            "onnxruntime",
        ]
    )


if __name__ == "__main__":
    sys.exit(main())
