# Builds the out-of-tree vendor plugin project twice: against the mroce-cts build tree
# (mroce_cts_DIR) and against an install prefix (cmake --install --component dut_abi).
# Inputs: MROCE_BUILD_DIR, VENDOR_SOURCE_DIR, WORK_DIR, GENERATOR, C_COMPILER.
file(REMOVE_RECURSE ${WORK_DIR})
file(MAKE_DIRECTORY ${WORK_DIR})

function(run what)
  execute_process(COMMAND ${ARGN} RESULT_VARIABLE rc OUTPUT_VARIABLE out ERROR_VARIABLE err)
  if(NOT rc EQUAL 0)
    message(FATAL_ERROR "${what} failed (${rc}):\n${out}\n${err}")
  endif()
endfunction()

function(check_plugin dir)
  foreach(lib vendor_dut vendor_dut_plain)
    if(NOT EXISTS ${dir}/lib${lib}.so)
      message(FATAL_ERROR "${dir}/lib${lib}.so was not built")
    endif()
  endforeach()
  # Only the entry point is exported by mroce_cts_add_plugin.
  find_program(NM nm)
  if(NM)
    execute_process(COMMAND ${NM} -D --defined-only ${dir}/libvendor_dut.so OUTPUT_VARIABLE syms)
    if(NOT syms MATCHES "mroce_dut_plugin_v1")
      message(FATAL_ERROR "libvendor_dut.so does not export mroce_dut_plugin_v1:\n${syms}")
    endif()
  endif()
endfunction()

# 1. Build tree.
run("configure against the build tree"
  ${CMAKE_COMMAND} -S ${VENDOR_SOURCE_DIR} -B ${WORK_DIR}/from-build -G ${GENERATOR}
  -DCMAKE_C_COMPILER=${C_COMPILER} -Dmroce_cts_DIR=${MROCE_BUILD_DIR})
run("build against the build tree" ${CMAKE_COMMAND} --build ${WORK_DIR}/from-build)
check_plugin(${WORK_DIR}/from-build)

# 2. Install prefix.
run("install the dut_abi component"
  ${CMAKE_COMMAND} --install ${MROCE_BUILD_DIR} --component dut_abi --prefix ${WORK_DIR}/prefix)
if(NOT EXISTS ${WORK_DIR}/prefix/include/mroce/dut/mroce_dut.h)
  message(FATAL_ERROR "install did not place include/mroce/dut/mroce_dut.h")
endif()
run("configure against the install prefix"
  ${CMAKE_COMMAND} -S ${VENDOR_SOURCE_DIR} -B ${WORK_DIR}/from-install -G ${GENERATOR}
  -DCMAKE_C_COMPILER=${C_COMPILER} -DCMAKE_PREFIX_PATH=${WORK_DIR}/prefix)
run("build against the install prefix" ${CMAKE_COMMAND} --build ${WORK_DIR}/from-install)
check_plugin(${WORK_DIR}/from-install)
message(STATUS "vendor plugin built against the build tree and against ${WORK_DIR}/prefix")
