"""tp script: write tp kernels as Python (parsed from the AST, never run), print any tp kernel
back as Python, and schedule it step by step (`Schedule`)."""

from .errors import ScriptError
from .function import PrimFunc, parse_script, script
from .printer import PrintError, to_script

__all__ = ["PrimFunc", "PrintError", "ScriptError", "parse_script", "script", "to_script"]
