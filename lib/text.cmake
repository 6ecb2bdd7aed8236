# Sources of the text module (tokenizer, chat templates): no LibTorch. One list, used by the
# normal build (lib/CMakeLists.txt) and the instrumented fuzz build (tests/fuzz/CMakeLists.txt).
set(DOCSIFT_TEXT_SOURCES
  ${CMAKE_CURRENT_LIST_DIR}/docsift/text/utf8.cpp
  ${CMAKE_CURRENT_LIST_DIR}/docsift/text/byte_level.cpp
  ${CMAKE_CURRENT_LIST_DIR}/docsift/text/bpe.cpp
  ${CMAKE_CURRENT_LIST_DIR}/docsift/text/pre_tokenizer.cpp
  ${CMAKE_CURRENT_LIST_DIR}/docsift/text/added_tokens.cpp
  ${CMAKE_CURRENT_LIST_DIR}/docsift/text/tokenizer.cpp
  ${CMAKE_CURRENT_LIST_DIR}/docsift/text/tokenizer_files.cpp
  ${CMAKE_CURRENT_LIST_DIR}/docsift/text/chat_template.cpp
)
