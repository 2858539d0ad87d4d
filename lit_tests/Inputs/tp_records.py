"""Write a tuning record for every block of the tp kernels in an .mlir file (lit helper).

tp_records.py in.mlir out.jsonl 'SCHEDULE' [cost] [--threads N] [--cpu NAME] [--default]

SCHEDULE is MLIR attribute text; the record is for this host's target unless --cpu names
another CPU, and for --threads (default 1).
"""

import argparse

from mlir import ir

import mlc
from mlc.dialects.tp import BlockView
from mlc.dialects.walk import walk
from mlc.target import host_target
from mlc.tuner.records import Record, append_records, target_dict, workloads

parser = argparse.ArgumentParser()
parser.add_argument("source")
parser.add_argument("out")
parser.add_argument("schedule")
parser.add_argument("cost", type=float, nargs="?", default=1.0)
parser.add_argument("--threads", type=int, default=1)
parser.add_argument("--cpu")
parser.add_argument("--default", action="store_true")
args = parser.parse_args()
target = target_dict(host_target())
if args.cpu:
    target["cpu"] = args.cpu
module = ir.Module.parse(open(args.source).read(), mlc.Context())
records = [
    Record(
        workload=key,
        kernel=name,
        block=BlockView(op).name,
        schedule=args.schedule,
        cost_ms=args.cost,
        target=target,
        threads=args.threads,
        default=args.default,
    )
    for key, name, kernel in workloads(module.operation)
    for op in walk(kernel)
    if op.name == "tp.block"
]
append_records(args.out, records)
