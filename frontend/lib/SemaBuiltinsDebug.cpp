// Builtins for debugging: print, the run-time assert, and static_assert, which Sema itself
// evaluates.
#include "SemaBuiltins.h"

namespace tk {

Type BuiltinCallChecker::checkDebug() {
  if (id_ == BuiltinId::Print) {
    if (!stringLiteralArg(0, {}))
      return Type::error();
    for (size_t i = 1; i < call_.bound.size(); ++i) // the values after the label
      if (!requireValue(i))
        return Type::error();
    return Type::voidType();
  }
  // assert and static_assert
  if (!requireValue(0))
    return Type::error();
  if (!type(0).isBool())
    return error(arg(0)->range, name_ + ": condition must be i1, found " + type(0).str());
  auto message = stringLiteralArg(1, {});
  if (!message)
    return Type::error();
  if (id_ == BuiltinId::StaticAssert) {
    if (!arg(0)->value)
      return error(arg(0)->range, "static_assert: condition is not a compile-time constant");
    if (!arg(0)->value->i)
      return error(call_.range, "static assertion failed" + (message->empty() ? std::string() : ": " + *message));
  }
  return Type::voidType();
}

// gdc_wait() and gdc_launch_dependents(): statements without arguments (programmatic dependent
// launch: the kernel before this one in its stream may still run until gdc_wait returns).
Type BuiltinCallChecker::checkGridDependency() { return Type::voidType(); }

} // namespace tk
