#ifndef TK_CODEGEN_LAYOUTRULES_TD
#define TK_CODEGEN_LAYOUTRULES_TD

include "mlir/IR/OpBase.td"

def LayoutRuleOpInterface : OpInterface<"LayoutRuleOpInterface"> {
  let cppNamespace = "::tk::codegen";
  let description = [{
    How an op's tiles may sit in layouts other than the default blocked one, for
    `tk-assign-layouts`: which layouts its results take from its operands', and which operands
    it takes in a layout of their own as they are (any other gets a `tkg.convert_layout` to the
    default). Every op that has tiles implements it (models attached per op family in
    LayoutRules.cpp; ops with the `Elementwise` trait follow one shared rule), so a new op
    cannot silently fall back to moving its tiles through shared memory: the pass rejects an
    op without a rule.
  }];
  let methods = [
    InterfaceMethod<[{
        Gives results the layouts that follow from the operands' current ones (through
        `state.assign`); returns whether any result got one.
      }], "bool", "inferResultLayouts", (ins "::tk::codegen::LayoutState &":$state)>,
    InterfaceMethod<[{
        Whether `operand`, held in the non-default layout `state.layoutOf(operand.get())`,
        may reach the op as it is.
      }], "bool", "acceptsOperandLayout", (ins "::mlir::OpOperand &":$operand, "const ::tk::codegen::LayoutState &":$state)>,
  ];
}

#endif
