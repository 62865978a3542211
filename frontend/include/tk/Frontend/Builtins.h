// The table of builtin functions: names, parameters (keyword arguments included) and ids that
// Sema and MLIRGen switch on.
#ifndef TK_FRONTEND_BUILTINS_H
#define TK_FRONTEND_BUILTINS_H

#include <string>
#include <vector>

namespace tk {

// X(Id, "name", "params", Family): params are comma-separated; `?` marks an optional
// (keyword) parameter, `*` a variadic tail; Family is the Sema checker that types the call.
#define TK_BUILTINS(X)                                                                         \
  X(ProgramId, "program_id", "axis", TileCreation)                                           \
  X(NumPrograms, "num_programs", "axis", TileCreation)                                       \
  X(Arange, "arange", "start,end", TileCreation)                                             \
  X(Zeros, "zeros", "shape,dtype", TileCreation)                                             \
  X(Full, "full", "shape,value,dtype", TileCreation)                                         \
  X(Load, "load", "ptrs,mask?,other?,cache?,evict?,prefetch_size?", MemoryAccess)            \
  X(Store, "store", "ptrs,value,mask?,evict?", MemoryAccess)                                 \
  X(TensorDesc, "tensor_desc", "base,shape,strides,block", MemoryAccess)                     \
  X(PrefetchL2, "prefetch_l2", "ptrs,count,mask?", MemoryAccess)                             \
  X(Dot, "dot", "a,b,acc?,precision?,max_num_imprecise_acc?", Dot)                          \
  X(Sum, "sum", "x,axis?", ReductionOrScan)                                                  \
  X(Max, "max", "x,axis?", ReductionOrScan)                                                  \
  X(Min, "min", "x,axis?", ReductionOrScan)                                                  \
  X(Argmax, "argmax", "x,axis?", ReductionOrScan)                                            \
  X(Argmin, "argmin", "x,axis?", ReductionOrScan)                                            \
  X(Reduce, "reduce", "x,axis,combine_fn", ReductionOrScan)                                  \
  X(Cumsum, "cumsum", "x,axis?,reverse?", ReductionOrScan)                                   \
  X(Cumprod, "cumprod", "x,axis?,reverse?", ReductionOrScan)                                 \
  X(Scan, "scan", "x,axis,combine_fn,reverse?", ReductionOrScan)                             \
  X(Reshape, "reshape", "x,shape", ShapeManipulation)                                        \
  X(Trans, "trans", "x", ShapeManipulation)                                                  \
  X(Permute, "permute", "x,dims", ShapeManipulation)                                         \
  X(BroadcastTo, "broadcast_to", "x,shape", ShapeManipulation)                               \
  X(ExpandDims, "expand_dims", "x,axis", ShapeManipulation)                                  \
  X(Exp, "exp", "x,ftz?", ElementwiseMath)                                                   \
  X(Exp2, "exp2", "x,ftz?", ElementwiseMath)                                                 \
  X(Log, "log", "x", ElementwiseMath)                                                        \
  X(Log2, "log2", "x", ElementwiseMath)                                                      \
  X(Sqrt, "sqrt", "x", ElementwiseMath)                                                      \
  X(Rsqrt, "rsqrt", "x", ElementwiseMath)                                                    \
  X(Sin, "sin", "x", ElementwiseMath)                                                        \
  X(Cos, "cos", "x", ElementwiseMath)                                                        \
  X(Tanh, "tanh", "x", ElementwiseMath)                                                      \
  X(Sigmoid, "sigmoid", "x", ElementwiseMath)                                                \
  X(Erf, "erf", "x", ElementwiseMath)                                                        \
  X(Abs, "abs", "x", ElementwiseMath)                                                        \
  X(Floor, "floor", "x", ElementwiseMath)                                                    \
  X(Ceil, "ceil", "x", ElementwiseMath)                                                      \
  X(Fma, "fma", "a,b,c", ElementwiseMath)                                                    \
  X(Maximum, "maximum", "a,b", ElementwiseMath)                                              \
  X(Minimum, "minimum", "a,b", ElementwiseMath)                                              \
  X(Clamp, "clamp", "x,lo,hi", ElementwiseMath)                                              \
  X(Where, "where", "cond,a,b", ElementwiseMath)                                             \
  X(Cdiv, "cdiv", "a,b", ElementwiseMath)                                                    \
  X(AtomicAdd, "atomic_add", "ptrs,value,mask?,sem?", MemoryAccess)                               \
  X(AtomicMax, "atomic_max", "ptrs,value,mask?,sem?", MemoryAccess)                               \
  X(AtomicMin, "atomic_min", "ptrs,value,mask?,sem?", MemoryAccess)                               \
  X(AtomicXchg, "atomic_xchg", "ptrs,value,mask?,sem?", MemoryAccess)                             \
  X(AtomicCas, "atomic_cas", "ptrs,cmp,value,sem?", MemoryAccess)                                 \
  X(MultipleOf, "multiple_of", "x,n", CompilerHint)                                          \
  X(MaxContiguous, "max_contiguous", "x,n", CompilerHint)                                    \
  X(Rand, "rand", "seed,offsets", Random)                                                    \
  X(Randn, "randn", "seed,offsets", Random)                                                  \
  X(Print, "print", "label,values*", Debug)                                                  \
  X(Assert, "assert", "cond,msg?", Debug)                                                    \
  X(StaticAssert, "static_assert", "cond,msg?", Debug)                                       \
  X(Bitcast, "bitcast", "x,dtype", ElementwiseMath)                                         \
  X(Cast, "cast", "x,dtype,saturate?", ElementwiseMath)                                     \
  X(GdcWait, "gdc_wait", "", GridDependency)                                                 \
  X(GdcLaunchDependents, "gdc_launch_dependents", "", GridDependency)

enum class BuiltinId {
#define TK_BUILTIN_ENUM(id, name, params, family) id,
  TK_BUILTINS(TK_BUILTIN_ENUM)
#undef TK_BUILTIN_ENUM
      Count
};

/// The families of builtins Sema checks together (one checker each, SemaBuiltins*.cpp).
enum class BuiltinFamily {
  TileCreation,
  ShapeManipulation,
  MemoryAccess,
  CompilerHint,
  Dot,
  ReductionOrScan,
  ElementwiseMath,
  Random,
  Debug,
  GridDependency
};

struct BuiltinParam {
  std::string name;
  bool optional = false;
  bool variadic = false;
};

struct BuiltinInfo {
  BuiltinId id;
  BuiltinFamily family;
  std::string name;
  std::vector<BuiltinParam> params;
  /// The form `load` and `store` take on a tensor descriptor (descriptorForm).
  bool onDescriptor = false;
  /// `load(ptrs, mask = ..., other = ..., cache = ..., evict = ...)`, for messages.
  std::string signature() const;
};

/// The builtin with this name, or null.
const BuiltinInfo *lookupBuiltin(const std::string &name);
const BuiltinInfo &builtinInfo(BuiltinId id);
const std::vector<BuiltinInfo> &allBuiltins();
/// `load(desc, offsets)` and `store(desc, offsets, value)`: the parameters load and store take
/// when their first argument is a tensor descriptor (same id, onDescriptor set); null for the
/// builtins that have no such form.
const BuiltinInfo *descriptorForm(BuiltinId id);

} // namespace tk

#endif
