# loom_add_gpu_program(<name> SOURCES <src>... [ISA gfx90a|gfx942]
#                      [FLAGS <clang flag>...] [OUTPUT_DIR <dir>])
#
# Builds a GPU program for `loom run` at build time with `loom cc`, which
# runs clang-22 with Loom's device library (docs/run.md). Creates target
# <name> and sets <name>_PATH in the caller's scope to the program's path.
function(loom_add_gpu_program name)
  cmake_parse_arguments(P "" "ISA;OUTPUT_DIR" "SOURCES;FLAGS" ${ARGN})
  if(NOT P_ISA)
    set(P_ISA gfx90a)
  endif()
  if(NOT P_OUTPUT_DIR)
    set(P_OUTPUT_DIR ${CMAKE_CURRENT_BINARY_DIR})
  endif()
  set(out ${P_OUTPUT_DIR}/${name})
  set(srcs "")
  foreach(s ${P_SOURCES})
    get_filename_component(abs ${s} ABSOLUTE)
    list(APPEND srcs ${abs})
  endforeach()
  add_custom_command(
    OUTPUT ${out}
    COMMAND $<TARGET_FILE:loom> cc --isa ${P_ISA} ${P_FLAGS} ${srcs} -o ${out}
    DEPENDS ${srcs} loom loomdev ${LOOM_DEVLIB}
    COMMENT "Building GPU program ${name} (loom cc)"
    VERBATIM)
  add_custom_target(${name} DEPENDS ${out})
  set(${name}_PATH ${out} PARENT_SCOPE)
endfunction()
