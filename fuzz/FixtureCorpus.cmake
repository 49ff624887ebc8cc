# cmake -DFIXTURE_DIR=... -DINPUT_DIR=... -DMETADATA_DIR=... -DEXTRACT=...
#       -P FixtureCorpus.cmake
# Seeds the fuzzers with the fixtures built in the build tree: every fixture
# file for fuzz_input, the msgpack metadata of every fixture code object for
# fuzz_metadata. The fixtures are build products, so this corpus lives in the
# build directory and is never checked in.
file(MAKE_DIRECTORY ${INPUT_DIR} ${METADATA_DIR})
file(GLOB elfs ${FIXTURE_DIR}/*.elf)
file(GLOB bundles ${FIXTURE_DIR}/*.hipfb)
set(files ${elfs} ${bundles})
if(EXISTS ${FIXTURE_DIR}/hip_two_kernels)
  list(APPEND files ${FIXTURE_DIR}/hip_two_kernels)
endif()
foreach(f IN LISTS files)
  file(COPY ${f} DESTINATION ${INPUT_DIR})
endforeach()
if(elfs)
  execute_process(COMMAND ${EXTRACT} ${METADATA_DIR} ${elfs}
                  RESULT_VARIABLE rc)
  if(NOT rc EQUAL 0)
    message(FATAL_ERROR "extract_metadata_seeds failed: ${rc}")
  endif()
endif()
