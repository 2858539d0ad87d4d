"""The ONNX conformance harness: every ONNX backend node test case through mlc, in worker processes.

Test machinery, not part of the `mlc` package: `python -m tools.conformance` (run from the
repository root) regenerates `docs/supported_ops.md`, `docs/conformance_results.json` and the
regression lists of `tests/frontend/onnx/`; the pytest suite imports the same modules.
"""
