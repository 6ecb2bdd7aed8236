// One decode at a time in the process. io catches what an image decoder prints by pointing the
// process's stderr at a file for the length of the call (image_file.cpp), which two threads at once
// would leave pointing there, and Poppler's documents share global state (pdf.cpp). Every decode
// holds this lock: pixels of an image or a PDF page, a PDF's text layer or page count. A thread
// that writes to stderr while other threads may be decoding (the run's log, batch/log.h) holds it
// too, so that no line of its is caught as a decoder's.
#pragma once

#include <mutex>

namespace docsift::io {

std::unique_lock<std::mutex> decode_lock();

}  // namespace docsift::io
