// The table of builtin functions: names, parameters (keyword arguments included) and ids that
// Sema and MLIRGen switch on.
#ifndef TK_FRONTEND_BUILTINS_H
#define TK_FRONTEND_BUILTINS_H

#include <string>
#include <vector>

namespace tk {

// X(Id, "name", "params"): params are comma-separated; `?` marks an optional (keyword)
// parameter, `*` a variadic tail.
#define TK_BUILTINS(X)                                                                         \
  X(ProgramId, "program_id", "axis")                                                           \
  X(NumPrograms, "num_programs", "axis")                                                       \
  X(Arange, "arange", "start,end")                                                             \
  X(Zeros, "zeros", "shape,dtype")                                                             \
  X(Full, "full", "shape,value,dtype")                                                         \
  X(Load, "load", "ptrs,mask?,other?,cache?,evict?")                                           \
  X(Store, "store", "ptrs,value,mask?,evict?")                                                 \
  X(Dot, "dot", "a,b,acc?,precision?")                                                         \
  X(Sum, "sum", "x,axis?")                                                                     \
  X(Max, "max", "x,axis?")                                                                     \
  X(Min, "min", "x,axis?")                                                                     \
  X(Argmax, "argmax", "x,axis?")                                                               \
  X(Argmin, "argmin", "x,axis?")                                                               \
  X(Reduce, "reduce", "x,axis,combine_fn")                                                     \
  X(Cumsum, "cumsum", "x,axis?,reverse?")                                                      \
  X(Cumprod, "cumprod", "x,axis?,reverse?")                                                    \
  X(Scan, "scan", "x,axis,combine_fn,reverse?")                                                \
  X(Reshape, "reshape", "x,shape")                                                             \
  X(Trans, "trans", "x")                                                                       \
  X(Permute, "permute", "x,dims")                                                              \
  X(BroadcastTo, "broadcast_to", "x,shape")                                                    \
  X(ExpandDims, "expand_dims", "x,axis")                                                       \
  X(Exp, "exp", "x")                                                                           \
  X(Exp2, "exp2", "x")                                                                         \
  X(Log, "log", "x")                                                                           \
  X(Log2, "log2", "x")                                                                         \
  X(Sqrt, "sqrt", "x")                                                                         \
  X(Rsqrt, "rsqrt", "x")                                                                       \
  X(Sin, "sin", "x")                                                                           \
  X(Cos, "cos", "x")                                                                           \
  X(Tanh, "tanh", "x")                                                                         \
  X(Sigmoid, "sigmoid", "x")                                                                   \
  X(Erf, "erf", "x")                                                                           \
  X(Abs, "abs", "x")                                                                           \
  X(Floor, "floor", "x")                                                                       \
  X(Ceil, "ceil", "x")                                                                         \
  X(Fma, "fma", "a,b,c")                                                                       \
  X(Maximum, "maximum", "a,b")                                                                 \
  X(Minimum, "minimum", "a,b")                                                                 \
  X(Clamp, "clamp", "x,lo,hi")                                                                 \
  X(Where, "where", "cond,a,b")                                                                \
  X(Cdiv, "cdiv", "a,b")                                                                       \
  X(AtomicAdd, "atomic_add", "ptrs,value,mask?")                                               \
  X(AtomicMax, "atomic_max", "ptrs,value,mask?")                                               \
  X(AtomicMin, "atomic_min", "ptrs,value,mask?")                                               \
  X(AtomicXchg, "atomic_xchg", "ptrs,value,mask?")                                             \
  X(AtomicCas, "atomic_cas", "ptrs,cmp,value")                                                 \
  X(MultipleOf, "multiple_of", "x,n")                                                          \
  X(MaxContiguous, "max_contiguous", "x,n")                                                    \
  X(Rand, "rand", "seed,offsets")                                                              \
  X(Randn, "randn", "seed,offsets")                                                            \
  X(Print, "print", "label,values*")                                                           \
  X(Assert, "assert", "cond,msg?")                                                             \
  X(StaticAssert, "static_assert", "cond,msg?")                                                \
  X(Bitcast, "bitcast", "x,dtype")

enum class BuiltinId {
#define TK_BUILTIN_ENUM(id, name, params) id,
  TK_BUILTINS(TK_BUILTIN_ENUM)
#undef TK_BUILTIN_ENUM
      Count
};

struct BuiltinParam {
  std::string name;
  bool optional = false;
  bool variadic = false;
};

struct BuiltinInfo {
  BuiltinId id;
  std::string name;
  std::vector<BuiltinParam> params;
  /// `load(ptrs, mask = ..., other = ..., cache = ..., evict = ...)`, for messages.
  std::string signature() const;
};

/// The builtin with this name, or null.
const BuiltinInfo *lookupBuiltin(const std::string &name);
const BuiltinInfo &builtinInfo(BuiltinId id);
const std::vector<BuiltinInfo> &allBuiltins();

} // namespace tk

#endif
