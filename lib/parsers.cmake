# Sources of the LibTorch-free parsers (safetensors header, shard index, generation_config.json, strict JSON, EXIF orientation, image headers). One list, used by the
# normal build (lib/CMakeLists.txt) and the instrumented fuzz build (tests/fuzz/CMakeLists.txt).
set(DOCSIFT_PARSER_SOURCES
  ${CMAKE_CURRENT_LIST_DIR}/docsift/model/dtype.cpp
  ${CMAKE_CURRENT_LIST_DIR}/docsift/model/safetensors_header.cpp
  ${CMAKE_CURRENT_LIST_DIR}/docsift/model/safetensors_index.cpp
  ${CMAKE_CURRENT_LIST_DIR}/docsift/model/generation_config.cpp
  ${CMAKE_CURRENT_LIST_DIR}/docsift/strict_json.cpp
  ${CMAKE_CURRENT_LIST_DIR}/docsift/io/exif.cpp
  ${CMAKE_CURRENT_LIST_DIR}/docsift/io/image_header.cpp
)
