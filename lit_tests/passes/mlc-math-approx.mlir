// RUN: mlc-opt %s --pass-pipeline='builtin.module(mlc-math-approx)' | FileCheck %s
// RUN: mlc-opt %s --pass-pipeline='builtin.module(mlc-math-approx{ops=exp})' | FileCheck %s --check-prefix=ONLYEXP
// RUN: not mlc-opt %s --pass-pipeline='builtin.module(mlc-math-approx{ops=exp,gamma})' 2>&1 | FileCheck %s --check-prefix=UNKNOWN
// RUN: mlc-opt %s --pass-pipeline='builtin.module(mlc-math-approx{vector-ldexp=true})' | FileCheck %s --check-prefix=LDEXP

// UNKNOWN: error: mlc-math-approx: ops: no approximation for gamma (supported: exp, expm1, log, log1p, tanh, erf, sin, cos, powf)

// exp: clamp (NaN kept), k = rint(x log2e) by the 1.5 * 2^23 trick, Cody-Waite r, expm1(r)
// polynomial, then 2^k in two halves (exponent bits) so overflow and denormals come out right.
// The vector stays a vector<8xf32> throughout.
// CHECK-LABEL: func.func @exp_vector(
// CHECK-SAME: %[[X:.*]]: vector<8xf32>
// CHECK-NOT: math.exp
// CHECK: %[[HI:.*]] = arith.constant dense<8.900000e+01> : vector<8xf32>
// CHECK-NEXT: %[[OVER:.*]] = arith.cmpf ogt, %[[X]], %[[HI]] : vector<8xf32>
// CHECK-NEXT: %[[X1:.*]] = arith.select %[[OVER]], %[[HI]], %[[X]] : vector<8xi1>, vector<8xf32>
// CHECK: %[[MAGIC:.*]] = arith.constant dense<0x4B400000> : vector<8xf32>
// CHECK-NEXT: %[[T:.*]] = math.fma %{{.*}}, %{{.*}}, %[[MAGIC]] : vector<8xf32>
// CHECK-NEXT: %[[K:.*]] = arith.subf %[[T]], %[[MAGIC]] : vector<8xf32>
// CHECK-NEXT: %[[TB:.*]] = arith.bitcast %[[T]] : vector<8xf32> to vector<8xi32>
// CHECK: %[[R1:.*]] = math.fma %[[K]], %{{.*}}, %{{.*}} : vector<8xf32>
// CHECK: %[[R:.*]] = math.fma %[[K]], %{{.*}}, %[[R1]] : vector<8xf32>
// CHECK: arith.shrsi
// CHECK: %[[S1:.*]] = arith.bitcast %{{.*}} : vector<8xi32> to vector<8xf32>
// CHECK-NEXT: %[[P1:.*]] = arith.mulf %{{.*}}, %[[S1]] : vector<8xf32>
// CHECK: %[[S2:.*]] = arith.bitcast %{{.*}} : vector<8xi32> to vector<8xf32>
// CHECK-NEXT: %[[Y:.*]] = arith.mulf %[[P1]], %[[S2]] : vector<8xf32>
// CHECK-NEXT: return %[[Y]] : vector<8xf32>
// ONLYEXP-LABEL: func.func @exp_vector(
// ONLYEXP-NOT: math.exp
// ONLYEXP: math.fma
func.func @exp_vector(%x: vector<8xf32>) -> vector<8xf32> {
  %0 = math.exp %x : vector<8xf32>
  return %0 : vector<8xf32>
}

// exp of an operand known to be <= 0 (`mlc.nonpositive`, a softmax's x - max): no clamps, one
// 2^k scale, and results below FLT_MIN (x < ln FLT_MIN) flushed to 0; NaN compares false.
// CHECK-LABEL: func.func @exp_nonpositive(
// CHECK-SAME: %[[X:.*]]: vector<8xf32>
// CHECK-NOT: math.exp
// CHECK-NOT: arith.cmpf
// CHECK: %[[MAGIC:.*]] = arith.constant dense<0x4B400000> : vector<8xf32>
// CHECK-NEXT: math.fma %[[X]], %{{.*}}, %[[MAGIC]] : vector<8xf32>
// CHECK-NOT: arith.shrsi
// CHECK: %[[S:.*]] = arith.bitcast %{{.*}} : vector<8xi32> to vector<8xf32>
// CHECK-NEXT: %[[Y:.*]] = arith.mulf %{{.*}}, %[[S]] : vector<8xf32>
// CHECK-NEXT: %[[LO:.*]] = arith.constant dense<-87.336{{.*}}> : vector<8xf32>
// CHECK-NEXT: %[[UNDER:.*]] = arith.cmpf olt, %[[X]], %[[LO]] : vector<8xf32>
// CHECK-NEXT: %[[ZERO:.*]] = arith.constant dense<0.000000e+00> : vector<8xf32>
// CHECK-NEXT: %[[R:.*]] = arith.select %[[UNDER]], %[[ZERO]], %[[Y]] : vector<8xi1>, vector<8xf32>
// CHECK-NEXT: return %[[R]] : vector<8xf32>
func.func @exp_nonpositive(%x: vector<8xf32>) -> vector<8xf32> {
  %0 = math.exp %x {mlc.nonpositive} : vector<8xf32>
  return %0 : vector<8xf32>
}

// tanh on a scalar: x clamped to [-9.01, 9.01] (NaN kept), x P(x^2) / Q(x^2) as for erf, then
// the quotient bounded by +-1 (its rounding can overshoot by 2 ulp just below the clamp).
// CHECK-LABEL: func.func @tanh_scalar(
// CHECK-SAME: %[[X:.*]]: f32
// CHECK-NOT: math.tanh
// CHECK: %[[HI:.*]] = arith.constant 9.010000e+00 : f32
// CHECK-NEXT: %[[OVER:.*]] = arith.cmpf ogt, %[[X]], %[[HI]] : f32
// CHECK: %[[LO:.*]] = arith.constant -9.010000e+00 : f32
// CHECK-NEXT: %[[UNDER:.*]] = arith.cmpf olt, %{{.*}}, %[[LO]] : f32
// CHECK-NEXT: %[[C:.*]] = arith.select %[[UNDER]], %[[LO]], %{{.*}} : f32
// CHECK-NEXT: %[[Z:.*]] = arith.mulf %[[C]], %[[C]] : f32
// CHECK: %[[P:.*]] = arith.mulf %[[C]], %{{.*}} : f32
// CHECK: %[[Q:.*]] = arith.divf %[[P]], %{{.*}} : f32
// CHECK-NEXT: %[[GT1:.*]] = arith.cmpf ogt, %[[Q]], %[[ONE:.*]] : f32
// CHECK-NEXT: %[[Y1:.*]] = arith.select %[[GT1]], %[[ONE]], %[[Q]] : f32
// CHECK-NEXT: %[[MONE:.*]] = arith.constant -1.000000e+00 : f32
// CHECK-NEXT: %[[LT1:.*]] = arith.cmpf olt, %[[Y1]], %[[MONE]] : f32
// CHECK-NEXT: %[[Y:.*]] = arith.select %[[LT1]], %[[MONE]], %[[Y1]] : f32
// CHECK-NEXT: return %[[Y]] : f32
// ONLYEXP-LABEL: func.func @tanh_scalar(
// ONLYEXP-NEXT: math.tanh
func.func @tanh_scalar(%x: f32) -> f32 {
  %0 = math.tanh %x : f32
  return %0 : f32
}

// erf: x clamped to [-3.92, 3.92] (NaN kept: compare and select), then x P(x^2) / Q(x^2):
// two Horner chains of fmas in x^2 and one division, on any vector shape.
// CHECK-LABEL: func.func @erf_2d(
// CHECK-SAME: %[[X:.*]]: vector<2x4xf32>
// CHECK-NOT: math.erf
// CHECK: %[[HI:.*]] = arith.cmpf ogt, %[[X]], %{{.*}} : vector<2x4xf32>
// CHECK-NEXT: %[[C1:.*]] = arith.select %[[HI]], %{{.*}}, %[[X]]
// CHECK: %[[LO:.*]] = arith.cmpf olt, %[[C1]], %{{.*}} : vector<2x4xf32>
// CHECK-NEXT: %[[C:.*]] = arith.select %[[LO]], %{{.*}}, %[[C1]]
// CHECK-NEXT: %[[Z:.*]] = arith.mulf %[[C]], %[[C]] : vector<2x4xf32>
// CHECK-COUNT-6: math.fma %{{.*}}, %[[Z]], %{{.*}} : vector<2x4xf32>
// CHECK: %[[P:.*]] = arith.mulf %[[C]], %{{.*}} : vector<2x4xf32>
// CHECK-COUNT-4: math.fma %{{.*}}, %[[Z]], %{{.*}} : vector<2x4xf32>
// CHECK: %[[R:.*]] = arith.divf %[[P]], %{{.*}} : vector<2x4xf32>
// CHECK-NEXT: return %[[R]] : vector<2x4xf32>
func.func @erf_2d(%x: vector<2x4xf32>) -> vector<2x4xf32> {
  %0 = math.erf %x : vector<2x4xf32>
  return %0 : vector<2x4xf32>
}

// sin: lanes beyond 2^20 (or inf/NaN) take a branch to the original op, kept as libm; the
// branch is entered only when some lane needs it.
// CHECK-LABEL: func.func @sin_vector(
// CHECK-SAME: %[[X:.*]]: vector<2x4xf32>
// CHECK: %[[FAST:.*]] = arith.cmpf ole, %{{.*}}, %{{.*}} : vector<2x4xf32>
// CHECK: %[[Y:.*]] = arith.bitcast %{{.*}} : vector<2x4xi32> to vector<2x4xf32>
// CHECK: %[[SLOW:.*]] = arith.xori %[[FAST]], %{{.*}} : vector<2x4xi1>
// CHECK-NEXT: %[[FLAT:.*]] = vector.shape_cast %[[SLOW]] : vector<2x4xi1> to vector<8xi1>
// CHECK-NEXT: %[[ANY:.*]] = vector.reduction <or>, %[[FLAT]] : vector<8xi1> into i1
// CHECK-NEXT: %[[R:.*]] = scf.if %[[ANY]] -> (vector<2x4xf32>) {
// CHECK-NEXT: %[[LIBM:.*]] = math.sin %[[X]] {mlc.libm} : vector<2x4xf32>
// CHECK-NEXT: %[[SEL:.*]] = arith.select %[[SLOW]], %[[LIBM]], %[[Y]]
// CHECK-NEXT: scf.yield %[[SEL]] : vector<2x4xf32>
// CHECK-NEXT: } else {
// CHECK-NEXT: scf.yield %[[Y]] : vector<2x4xf32>
// CHECK-NEXT: }
// CHECK-NEXT: return %[[R]] : vector<2x4xf32>
func.func @sin_vector(%x: vector<2x4xf32>) -> vector<2x4xf32> {
  %0 = math.sin %x : vector<2x4xf32>
  return %0 : vector<2x4xf32>
}

// Running the pass again leaves the libm branch alone.
// CHECK-LABEL: func.func @marked_libm(
// CHECK-NEXT: math.cos %{{.*}} {mlc.libm} : f32
func.func @marked_libm(%x: f32) -> f32 {
  %0 = math.cos %x {mlc.libm} : f32
  return %0 : f32
}

// powf with a constant exponent 2 is a multiplication; any other exponent runs in f64.
// CHECK-LABEL: func.func @powf_square(
// CHECK-SAME: %[[X:.*]]: vector<8xf32>
// CHECK-NEXT: %{{.*}} = arith.constant
// CHECK-NEXT: %[[Y:.*]] = arith.mulf %[[X]], %[[X]] : vector<8xf32>
// CHECK-NEXT: return %[[Y]] : vector<8xf32>
// CHECK-LABEL: func.func @powf_general(
// CHECK-NOT: math.powf
// CHECK: arith.extf %{{.*}} : f32 to f64
// CHECK: arith.truncf %{{.*}} : f64 to f32
func.func @powf_square(%x: vector<8xf32>) -> vector<8xf32> {
  %c2 = arith.constant dense<2.0> : vector<8xf32>
  %0 = math.powf %x, %c2 : vector<8xf32>
  return %0 : vector<8xf32>
}
func.func @powf_general(%x: f32, %y: f32) -> f32 {
  %0 = math.powf %x, %y : f32
  return %0 : f32
}

// f64 and f16 are not this pass's business (libm; math-extend-to-supported-types first).
// CHECK-LABEL: func.func @other_types(
// CHECK-NEXT: math.exp %{{.*}} : f64
// CHECK-NEXT: math.log %{{.*}} : vector<8xf16>
func.func @other_types(%d: f64, %h: vector<8xf16>) -> (f64, vector<8xf16>) {
  %0 = math.exp %d : f64
  %1 = math.log %h : vector<8xf16>
  return %0, %1 : f64, vector<8xf16>
}

// vector-ldexp: exp scales by 2^k with one llvm.ldexp (AVX-512: vscalefps), for f32 scalars and
// 1-D vectors; LLVM has no n-D vectors, so those keep the exponent-bits form.
// LDEXP-LABEL: func.func @exp_vector(
// LDEXP-NOT: arith.shrsi
// LDEXP: %[[Y:.*]] = llvm.call_intrinsic "llvm.ldexp.v8f32.v8i32"(%{{.*}}, %{{.*}}) : (vector<8xf32>, vector<8xi32>) -> vector<8xf32>
// LDEXP-NEXT: return %[[Y]] : vector<8xf32>
// LDEXP-LABEL: func.func @exp_nonpositive(
// LDEXP: %[[Y:.*]] = llvm.call_intrinsic "llvm.ldexp.v8f32.v8i32"
// LDEXP: arith.select %{{.*}}, %{{.*}}, %[[Y]]
// LDEXP-LABEL: func.func @exp_scalar_and_2d(
// LDEXP: llvm.call_intrinsic "llvm.ldexp.f32.i32"(%{{.*}}, %{{.*}}) : (f32, i32) -> f32
// LDEXP-NOT: llvm.call_intrinsic
// LDEXP: arith.shrsi %{{.*}} : vector<2x4xi32>
// LDEXP: return
func.func @exp_scalar_and_2d(%s: f32, %v: vector<2x4xf32>) -> (f32, vector<2x4xf32>) {
  %0 = math.exp %s : f32
  %1 = math.exp %v : vector<2x4xf32>
  return %0, %1 : f32, vector<2x4xf32>
}
