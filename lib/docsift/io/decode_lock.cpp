#include "docsift/io/decode_lock.h"

namespace docsift::io {

std::unique_lock<std::mutex> decode_lock() {
  static std::mutex decoding;
  return std::unique_lock<std::mutex>(decoding);
}

}  // namespace docsift::io
