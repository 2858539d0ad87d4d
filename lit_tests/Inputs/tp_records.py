"""Write a tuning record for every block of the tp kernels in an .mlir file (lit helper).

tp_records.py in.mlir out.jsonl 'SCHEDULE' [cost]     # SCHEDULE is MLIR attribute text
"""

import sys

from mlir import ir

import mlc
from mlc.dialects.tp import BlockView
from mlc.dialects.walk import walk
from mlc.tuner.records import Record, append_records, workloads

source, out, schedule = sys.argv[1], sys.argv[2], sys.argv[3]
cost = float(sys.argv[4]) if len(sys.argv) > 4 else 1.0
module = ir.Module.parse(open(source).read(), mlc.Context())
records = [
    Record(workload=key, kernel=name, block=BlockView(op).name, schedule=schedule, cost_ms=cost)
    for key, name, kernel in workloads(module.operation)
    for op in walk(kernel)
    if op.name == "tp.block"
]
append_records(out, records)
