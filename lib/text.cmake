# Sources of the text module (tokenizer, chat templates): no LibTorch. The instrumented fuzz build
# (tests/fuzz/CMakeLists.txt) compiles them from this glob, as the normal build globs each layer's
# folder (lib/CMakeLists.txt), so a file split out of one is never left out of the other.
file(GLOB DOCSIFT_TEXT_SOURCES CONFIGURE_DEPENDS ${CMAKE_CURRENT_LIST_DIR}/docsift/text/*.cpp)
# UTF-8 validation is base's (docsift/utf8.h); the text module builds on it.
list(APPEND DOCSIFT_TEXT_SOURCES ${CMAKE_CURRENT_LIST_DIR}/docsift/utf8.cpp)
