// evaluateIntExpression: `tkc run --grid` and `tkc tune --grid`. The text is parsed as one
// expression on its own (never pasted into generated source), by precedence climbing, which
// loops along a chain of operators and recurses only into parentheses, calls and prefix
// operators (bounded by ParseLimits::kMaxNesting). The arithmetic is checked: an overflow of
// 64 bits is an error, not a wrapped value.
#include "tk/Frontend/IntExpression.h"
#include "tk/Frontend/Parser.h"

#include "llvm/Support/CheckedArithmetic.h"

#include <limits>
#include <cctype>
#include <optional>

namespace tk {

namespace {

class IntExpression {
public:
  IntExpression(const std::string &text, const std::map<std::string, int64_t> &names) : text_(text), names_(names) {}

  bool evaluate(int64_t &value, std::string &error) {
    std::optional<int64_t> result = binary(0);
    skipSpace();
    if (result && at_ != text_.size())
      fail("unexpected '" + text_.substr(at_, 10) + "' after the expression");
    if (!error_.empty()) {
      error = error_;
      return false;
    }
    value = *result;
    return true;
  }

private:
  /// The error at `column` (0-based; by default where the parse is): an operator's or a name's
  /// own column, not the end of what was read after it.
  std::optional<int64_t> fail(const std::string &message, std::optional<size_t> column = std::nullopt) {
    if (error_.empty())
      error_ = message + " (at column " + std::to_string(column.value_or(at_) + 1) + ")";
    return std::nullopt;
  }
  void skipSpace() {
    while (at_ < text_.size() && std::isspace(static_cast<unsigned char>(text_[at_])))
      ++at_;
  }
  bool take(const char *token) {
    skipSpace();
    size_t n = std::char_traits<char>::length(token);
    if (text_.compare(at_, n, token) != 0)
      return false;
    at_ += n;
    return true;
  }

  /// The binary operators, loosest first (the language's precedence, LANGUAGE.md).
  static int precedence(const std::string &op) {
    static const std::pair<const char *, int> table[] = {
        {"||", 1}, {"&&", 2}, {"==", 3}, {"!=", 3}, {"<=", 3}, {">=", 3}, {"<", 3}, {">", 3}, {"|", 4},
        {"^", 5},  {"&", 6},  {"<<", 7}, {">>", 7}, {"+", 8},  {"-", 8},  {"*", 9}, {"/", 9}, {"%", 9}};
    for (auto &[spelling, level] : table)
      if (op == spelling)
        return level;
    return 0;
  }
  std::string peekOperator() {
    skipSpace();
    for (const char *op : {"||", "&&", "==", "!=", "<=", ">=", "<<", ">>", "<", ">", "|", "^", "&", "+", "-", "*", "/", "%"})
      if (text_.compare(at_, std::char_traits<char>::length(op), op) == 0)
        return op;
    return "";
  }

  std::optional<int64_t> binary(int minLevel) {
    std::optional<int64_t> lhs = unary();
    while (lhs) {
      std::string op = peekOperator();
      int level = precedence(op);
      if (!level || level < minLevel)
        break;
      size_t opAt = at_;
      at_ += op.size();
      std::optional<int64_t> rhs = binary(level + 1);
      if (!rhs)
        return std::nullopt;
      lhs = apply(op, *lhs, *rhs, opAt);
    }
    return lhs;
  }

  std::optional<int64_t> apply(const std::string &op, int64_t a, int64_t b, size_t opAt) {
    auto fail = [&](const std::string &message) { return this->fail(message, opAt); };
    std::optional<int64_t> r;
    if (op == "+") r = llvm::checkedAdd(a, b);
    else if (op == "-") r = llvm::checkedSub(a, b);
    else if (op == "*") r = llvm::checkedMul(a, b);
    else if (op == "/" || op == "%") {
      if (b == 0)
        return fail("division by zero in a constant expression");
      if (a == INT64_MIN && b == -1)
        return fail("integer overflow in a constant expression");
      return op == "/" ? a / b : a % b;
    } else if (op == "<<" || op == ">>") {
      if (b < 0 || b > 63)
        return fail("shift by " + std::to_string(b) + " in a constant expression (0 to 63)");
      if (op == ">>")
        return a >> b;
      if (a < 0 || (b > 0 && (a >> (63 - b)) != 0))
        return fail("integer overflow in a constant expression");
      return a << b;
    } else if (op == "&") return a & b;
    else if (op == "|") return a | b;
    else if (op == "^") return a ^ b;
    else if (op == "&&") return int64_t(a && b);
    else if (op == "||") return int64_t(a || b);
    else if (op == "==") return int64_t(a == b);
    else if (op == "!=") return int64_t(a != b);
    else if (op == "<") return int64_t(a < b);
    else if (op == "<=") return int64_t(a <= b);
    else if (op == ">") return int64_t(a > b);
    else if (op == ">=") return int64_t(a >= b);
    if (!r)
      return fail("integer overflow in a constant expression");
    return r;
  }

  std::optional<int64_t> unary() {
    skipSpace();
    if (++depth_ > ParseLimits::kMaxNesting)
      return fail("nesting is too deep (more than " + std::to_string(ParseLimits::kMaxNesting) + " levels)");
    std::optional<int64_t> result;
    size_t opAt = at_;
    if (take("-")) {
      result = unary();
      if (result)
        result = *result == INT64_MIN ? fail("integer overflow in a constant expression", opAt) : std::optional(-*result);
    } else if (take("~")) {
      if ((result = unary()))
        result = ~*result;
    } else if (take("!")) {
      if ((result = unary()))
        result = int64_t(*result == 0);
    } else {
      result = primary();
    }
    --depth_;
    return result;
  }

  std::optional<int64_t> primary() {
    skipSpace();
    if (take("(")) {
      std::optional<int64_t> inner = binary(0);
      if (inner && !take(")"))
        return fail("expected ')'");
      return inner;
    }
    if (at_ < text_.size() && std::isdigit(static_cast<unsigned char>(text_[at_])))
      return literal();
    size_t start = at_;
    while (at_ < text_.size() && (std::isalnum(static_cast<unsigned char>(text_[at_])) || text_[at_] == '_'))
      ++at_;
    std::string name = text_.substr(start, at_ - start);
    if (name.empty())
      return fail(at_ < text_.size() ? "unexpected '" + text_.substr(at_, 1) + "'" : "expected an expression");
    if (take("(")) {
      if (name != "cdiv" && name != "minimum" && name != "maximum")
        return fail("'" + name + "' is not a function of integers (cdiv, minimum, maximum)", start);
      std::optional<int64_t> a = binary(0);
      if (!a || !take(","))
        return a ? fail("expected ','") : std::nullopt;
      std::optional<int64_t> b = binary(0);
      if (!b || !take(")"))
        return b ? fail("expected ')'") : std::nullopt;
      if (name == "minimum")
        return std::min(*a, *b);
      if (name == "maximum")
        return std::max(*a, *b);
      if (*b == 0)
        return fail("division by zero in a constant expression", start);
      // The quotient rounded up, as the language's cdiv: truncated, plus 1 when the remainder
      // is not zero and of the divisor's sign.
      if (*a == std::numeric_limits<int64_t>::min() && *b == -1)
        return fail("integer overflow in a constant expression", start);
      int64_t quotient = *a / *b, remainder = *a % *b;
      return quotient + (remainder != 0 && (remainder < 0) == (*b < 0) ? 1 : 0);
    }
    auto it = names_.find(name);
    if (it == names_.end()) {
      std::string known;
      for (auto &[n, v] : names_)
        known += (known.empty() ? "" : ", ") + n;
      return fail("unknown name '" + name + "'" + (known.empty() ? "" : " (known: " + known + ")"), start);
    }
    return it->second;
  }

  std::optional<int64_t> literal() {
    int base = 10;
    if (text_.compare(at_, 2, "0x") == 0 || text_.compare(at_, 2, "0X") == 0)
      base = 16, at_ += 2;
    else if (text_.compare(at_, 2, "0b") == 0 || text_.compare(at_, 2, "0B") == 0)
      base = 2, at_ += 2;
    uint64_t value = 0;
    bool digits = false;
    for (; at_ < text_.size(); ++at_) {
      char c = text_[at_];
      if (c == '_')
        continue;
      int d = std::isdigit(static_cast<unsigned char>(c)) ? c - '0'
              : std::isxdigit(static_cast<unsigned char>(c)) && base == 16 ? (c | 0x20) - 'a' + 10
                                                                            : -1;
      if (d < 0 || d >= base)
        break;
      if (value > (uint64_t(INT64_MAX) - d) / base)
        return fail("integer literal does not fit in 64 bits");
      value = value * base + d;
      digits = true;
    }
    if (!digits)
      return fail("integer literal has no digits");
    return int64_t(value);
  }

  const std::string &text_;
  const std::map<std::string, int64_t> &names_;
  size_t at_ = 0;
  int depth_ = 0;
  std::string error_;
};

} // namespace

bool evaluateIntExpression(const std::string &expression, const std::map<std::string, int64_t> &names,
                           int64_t &value, std::string &error) {
  return IntExpression(expression, names).evaluate(value, error);
}

} // namespace tk
