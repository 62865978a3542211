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

def Tk_DotPrecision : I32EnumAttr<"DotPrecision", "precision of f32 dot products", [
    I32EnumAttrCase<"tf32", 0>, I32EnumAttrCase<"ieee", 1>]> {
  let cppNamespace = "::tk";
}

def Tk_RandDistribution : I32EnumAttr<"RandDistribution", "distribution of tk.rand", [
    I32EnumAttrCase<"uniform", 0>, I32EnumAttrCase<"normal", 1>]> {
  let cppNamespace = "::tk";
}

def Tk_LayoutAttr : AttrDef<Tk_Dialect, "Layout"> {
  let mnemonic = "layout";
  let summary = "how a tile's elements sit in a program's threads (GPU backend only)";
  let description = [{
    A linear layout: bit b of a thread's slot number sets element-index bit `slots[b]` of the
    element it holds, bit b of the thread id sets bit `threads[b]`; -1 sets none (a replica).
    The GPU backend puts it on the type of a tile whose layout holds a different number of
    elements per thread than the default blocked one (a row statistic of a tensor-core
    accumulator: `#tk.layout<slots = [3, 4], threads = [-1, -1, 0, 1, 2, 5, 6, 7]>`), so that
    the type says how many scalars a thread keeps. Front ends never write it.
  }];
  let parameters = (ins ArrayRefParameter<"int32_t">:$slots, ArrayRefParameter<"int32_t">:$threads);
  let assemblyFormat = "`<` `slots` `=` `[` $slots `]` `,` `threads` `=` `[` $threads `]` `>`";
}

#endif
