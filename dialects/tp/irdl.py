"""The IRDL text of the `tp` dialect (mlc's TensorIR).

A tensor program is a `func.func` over memrefs marked `tp.kernel`; its body is a sequence of
`tp.block` ops. A block names its iteration axes (kind S or R, extent), the map from axes to the
element of its one output buffer it defines, the reduction combiner and init value, and a
schedule keyed by axis name. Its region computes one scalar from `tp.read`s of captured buffers
and ends in `gpu.yield` (IRDL ops cannot be terminators; gpu.yield accepts any parent).
`tp.dot4 %lhs, %rhs` (i32 words of four bytes each) is the sum of the products of the unsigned
bytes of lhs with the signed bytes of rhs: the int8 dot product of x86 VNNI (`vpdpbusd`).
"""

TP_IRDL = r"""
irdl.dialect @tp {
  irdl.operation @block {
    %m = irdl.base "!builtin.memref"
    irdl.operands(out: %m)
    irdl.results()
    %s0 = irdl.base "#builtin.string"
    %s1 = irdl.base "#builtin.array"
    %s2 = irdl.base "#builtin.string"
    %s3 = irdl.base "#builtin.dense_array"
    %s4 = irdl.base "#builtin.affine_map"
    %s5 = irdl.base "#builtin.string"
    %s6 = irdl.any
    %s7 = irdl.base "#builtin.dictionary"
    irdl.attributes {"name" = %s0, "axes" = %s1, "kinds" = %s2, "extents" = %s3, "out_map" = %s4, "combiner" = %s5, "init" = %s6, "schedule" = %s7}
    %r = irdl.region with size 1
    irdl.regions(body: %r)
  }
  irdl.operation @read {
    %m = irdl.base "!builtin.memref"
    %v = irdl.any
    %a = irdl.base "#builtin.affine_map"
    irdl.operands(buffer: %m)
    irdl.results(value: %v)
    irdl.attributes {"map" = %a}
  }
  irdl.operation @read_padded {
    %m = irdl.base "!builtin.memref"
    %v = irdl.any
    %a = irdl.base "#builtin.affine_map"
    %p = irdl.any
    irdl.operands(buffer: %m)
    irdl.results(value: %v)
    irdl.attributes {"map" = %a, "value" = %p}
  }
  irdl.operation @load {
    %m = irdl.base "!builtin.memref"
    %i = irdl.is index
    %v = irdl.any
    irdl.operands(buffer: %m, indices: variadic %i)
    irdl.results(value: %v)
  }
  irdl.operation @index {
    %i = irdl.is index
    %a = irdl.base "#builtin.string"
    irdl.operands()
    irdl.results(value: %i)
    irdl.attributes {"axis" = %a}
  }
  irdl.operation @dot4 {
    %l = irdl.is i32
    %r = irdl.is i32
    %v = irdl.is i32
    irdl.operands(lhs: %l, rhs: %r)
    irdl.results(value: %v)
  }
}
"""
