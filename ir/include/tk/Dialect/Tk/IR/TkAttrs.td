#ifndef TK_ATTRS_TD
#define TK_ATTRS_TD

include "mlir/IR/AttrTypeBase.td"
include "mlir/IR/EnumAttr.td"
include "tk/Dialect/Tk/IR/TkDialect.td"

def Tk_CacheModifier : I32EnumAttr<"CacheModifier", "load cache modifier", [
    I32EnumAttrCase<"none", 0>, I32EnumAttrCase<"ca", 1>, I32EnumAttrCase<"cg", 2>]> {
  let cppNamespace = "::tk";
}

def Tk_EvictionPolicy : I32EnumAttr<"EvictionPolicy", "cache eviction policy", [
    I32EnumAttrCase<"normal", 0>, I32EnumAttrCase<"first", 1>, I32EnumAttrCase<"last", 2>]> {
  let cppNamespace = "::tk";
}

def Tk_AtomicKind : I32EnumAttr<"AtomicKind", "atomic read-modify-write operation", [
    I32EnumAttrCase<"add", 0>, I32EnumAttrCase<"max", 1>, I32EnumAttrCase<"min", 2>,
    I32EnumAttrCase<"xchg", 3>, I32EnumAttrCase<"umax", 4>, I32EnumAttrCase<"umin", 5>]> {
  let cppNamespace = "::tk";
}

def Tk_MemorySemantic : I32EnumAttr<"MemorySemantic", "memory ordering of an atomic (Triton's sem)", [
    I32EnumAttrCase<"acq_rel", 0>, I32EnumAttrCase<"relaxed", 1>, I32EnumAttrCase<"acquire", 2>,
    I32EnumAttrCase<"release", 3>]> {
  let cppNamespace = "::tk";
}

def Tk_DotPrecision : I32EnumAttr<"DotPrecision", "precision of f32 dot products", [
    I32EnumAttrCase<"tf32", 0>, I32EnumAttrCase<"ieee", 1>]> {
  let cppNamespace = "::tk";
}

def Tk_RandDistribution : I32EnumAttr<"RandDistribution", "distribution of tk.rand", [
    I32EnumAttrCase<"uniform", 0>, I32EnumAttrCase<"normal", 1>]> {
  let cppNamespace = "::tk";
}

#endif
