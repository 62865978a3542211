// Integer expressions of the language evaluated on their own, outside any kernel: `tkc run
// --grid`, `tkc tune --grid` (frontend/lib/IntExpression.cpp).
#ifndef TK_FRONTEND_INTEXPRESSION_H
#define TK_FRONTEND_INTEXPRESSION_H

#include <cstdint>
#include <map>
#include <string>

namespace tk {

/// Evaluates an integer expression of the language (`cdiv(n, BLOCK) * 2`) over named integer
/// values, with the compiler's constant folding. Returns false with a message on error.
bool evaluateIntExpression(const std::string &expression, const std::map<std::string, int64_t> &names,
                           int64_t &value, std::string &error);

} // namespace tk

#endif
