# `cmake --install build --prefix P`: P/bin/docsift, P/lib/docsift/libdocsift_cuda.so (with a CUDA
# LibTorch), P/share/docsift/configs (the shipped configs, field schema and OCR rules; the
# default schema and rules are also compiled in) and P/share/docsift/tessdata (Tesseract's larger
# English model, when setup fetched it). `cpack -G DEB` in the build folder makes a .deb
# of the same files for /usr.
#
# LibTorch is not copied: the installed binary finds the LibTorch it was built against through its
# RUNPATH (the wheel in .deps/venv with its nvidia library folders, or your -DCMAKE_PREFIX_PATH).
# The .deb therefore runs on machines that have that LibTorch at that path; its Debian dependencies
# are listed below.
include(GNUInstallDirs)
set_target_properties(docsift_cli PROPERTIES INSTALL_RPATH "${DOCSIFT_RUNTIME_LIB_DIRS}" INSTALL_RPATH_USE_LINK_PATH ON)
install(TARGETS docsift_cli RUNTIME DESTINATION ${CMAKE_INSTALL_BINDIR})
if(TARGET docsift_cuda)
  # bin/../lib/docsift is where the program looks for its CUDA plugin (device/cuda_backend.cpp).
  set_target_properties(docsift_cuda PROPERTIES INSTALL_RPATH "${DOCSIFT_RUNTIME_LIB_DIRS}" INSTALL_RPATH_USE_LINK_PATH ON)
  install(TARGETS docsift_cuda LIBRARY DESTINATION lib/docsift)
endif()
install(DIRECTORY ${PROJECT_SOURCE_DIR}/configs/ DESTINATION ${CMAKE_INSTALL_DATADIR}/docsift/configs)
# Tesseract's larger English model, where scripts/setup.sh fetched it: bin/../share/docsift/tessdata
# is where the OCR engine's second reading looks for it (ocr/engine.cpp, ocr.evened_model: auto).
install(FILES ${PROJECT_SOURCE_DIR}/.deps/tessdata/eng.traineddata DESTINATION ${CMAKE_INSTALL_DATADIR}/docsift/tessdata OPTIONAL)
# The second text recognizer that setup converted (ocr.recognizer: both): bin/../share/docsift/ppocr
# is where recognize::LineReader::installed_folder looks first.
install(FILES ${PROJECT_SOURCE_DIR}/.deps/ppocr/recognizer.json ${PROJECT_SOURCE_DIR}/.deps/ppocr/recognizer.safetensors
        DESTINATION ${CMAKE_INSTALL_DATADIR}/docsift/ppocr OPTIONAL)
install(FILES ${PROJECT_SOURCE_DIR}/README.md DESTINATION ${CMAKE_INSTALL_DATADIR}/doc/docsift)
install(DIRECTORY ${PROJECT_SOURCE_DIR}/docs/ DESTINATION ${CMAKE_INSTALL_DATADIR}/doc/docsift/docs)

set(CPACK_GENERATOR DEB)
set(CPACK_PACKAGE_NAME docsift)
set(CPACK_PACKAGE_VERSION ${PROJECT_VERSION})
set(CPACK_PACKAGE_CONTACT "docsift maintainers <docsift@example.com>")
set(CPACK_PACKAGE_DESCRIPTION_SUMMARY "Batch field extraction from scanned business documents")
set(CPACK_PACKAGING_INSTALL_PREFIX /usr)
set(CPACK_DEBIAN_FILE_NAME DEB-DEFAULT)
set(CPACK_DEBIAN_PACKAGE_SECTION utils)
# dpkg-shlibdeps cannot map LibTorch (not a Debian package), so the Debian libraries are named here.
set(CPACK_DEBIAN_PACKAGE_SHLIBDEPS OFF)
set(CPACK_DEBIAN_PACKAGE_DEPENDS
    "libtesseract5, tesseract-ocr-eng, libpoppler-cpp0v5, libopencv-core406, libopencv-imgproc406, libopencv-imgcodecs406, libyaml-cpp0.7, libpcre2-8-0, libutf8proc2")
include(CPack)
