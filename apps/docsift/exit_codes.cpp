#include "exit_codes.h"

#include <c10/util/Exception.h>

#include "docsift/error.h"

namespace docsift::cli {
namespace {

// c10::Error::what() appends a C++ backtrace; the first line is the message.
std::string first_line(const std::string& text) { return text.substr(0, text.find('\n')); }

}  // namespace

Failure failure_of(const std::exception_ptr& error) {
  try {
    std::rethrow_exception(error);
  } catch (const docsift::ConfigError& e) {
    return {kExitUsage, e.what()};
  } catch (const docsift::FileError& e) {
    return {kExitCannotStart, e.what()};
  } catch (const c10::Error& e) {
    return {kExitCannotStart, "LibTorch: " + first_line(e.what())};
  } catch (const std::exception& e) {
    return {kExitCannotStart, std::string("unexpected: ") + e.what()};
  } catch (...) {
    return {kExitCannotStart, "unexpected: an exception that is not a std::exception"};
  }
}

}  // namespace docsift::cli
