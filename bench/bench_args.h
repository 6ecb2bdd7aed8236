// The benches' command lines: "--flag value" pairs and flags alone, in any order, and one
// positional argument (the model folder). Each bench keeps its own Options and dispatch.
#pragma once

#include <stdexcept>
#include <string>

namespace docsift::bench {

class Args {
 public:
  Args(int argc, char** argv) : argc_(argc), argv_(argv) {}
  // Moves to the next argument; false past the last.
  bool next() { return ++i_ < argc_; }
  std::string arg() const { return argv_[i_]; }
  bool is_flag() const { return arg().rfind("--", 0) == 0; }
  // The value after the current flag, consumed.
  std::string value() {
    if (i_ + 1 >= argc_) throw std::runtime_error(arg() + " needs a value");
    return argv_[++i_];
  }
  int int_value() { return std::stoi(value()); }
  [[noreturn]] void unknown() const { throw std::runtime_error("unknown argument " + arg()); }

 private:
  int argc_;
  char** argv_;
  int i_ = 0;
};

}  // namespace docsift::bench
