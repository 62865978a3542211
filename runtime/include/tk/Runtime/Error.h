#ifndef TK_RUNTIME_ERROR_H
#define TK_RUNTIME_ERROR_H

#include <stdexcept>
#include <string>

namespace tk {

/// Every runtime failure that is not a fault of a running kernel: no driver, no GPU, a failed
/// CUDA call, a bad argument. The message says what is missing or wrong.
class Error : public std::runtime_error {
public:
  using std::runtime_error::runtime_error;
};

} // namespace tk

#endif
