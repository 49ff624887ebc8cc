//===- examples/SaxpyIR.h - saxpy as LLVM IR text -------------------------===//
//
// y[i] = a * x[i] + y[i] for i < n, work-groups of 64: the JIT's example,
// its tests and its benchmark all compile this one kernel.
//
//===----------------------------------------------------------------------===//
#ifndef LOOM_EXAMPLES_SAXPYIR_H
#define LOOM_EXAMPLES_SAXPYIR_H

namespace loom::examples {

inline constexpr const char *SaxpyIR = R"(
define amdgpu_kernel void @saxpy(float %a, ptr addrspace(1) %x,
                                 ptr addrspace(1) %y, i32 %n) {
entry:
  %tid = call i32 @llvm.amdgcn.workitem.id.x()
  %bid = call i32 @llvm.amdgcn.workgroup.id.x()
  %base = mul i32 %bid, 64
  %i = add i32 %base, %tid
  %in = icmp ult i32 %i, %n
  br i1 %in, label %body, label %done
body:
  %px = getelementptr float, ptr addrspace(1) %x, i32 %i
  %py = getelementptr float, ptr addrspace(1) %y, i32 %i
  %vx = load float, ptr addrspace(1) %px
  %vy = load float, ptr addrspace(1) %py
  %m = fmul float %a, %vx
  %r = fadd float %m, %vy
  store float %r, ptr addrspace(1) %py
  br label %done
done:
  ret void
}
declare i32 @llvm.amdgcn.workitem.id.x()
declare i32 @llvm.amdgcn.workgroup.id.x()
)";

} // namespace loom::examples

#endif // LOOM_EXAMPLES_SAXPYIR_H
