# Runs `tkc check` on every input the fuzzer ever crashed on: each must end with exit status 0
# or 1 (a diagnostic), never a signal or an internal error (70).
file(GLOB inputs ${REGRESSIONS}/*)
list(LENGTH inputs count)
if(count EQUAL 0)
  message(FATAL_ERROR "no regression inputs in ${REGRESSIONS}")
endif()
foreach(input ${inputs})
  execute_process(COMMAND ${TKC} ${input} --emit=tk -o /dev/null
                  RESULT_VARIABLE status ERROR_VARIABLE stderr OUTPUT_QUIET TIMEOUT 60)
  # 0: compiled, 1: a diagnostic; anything else (a signal, 70 for an internal error) is a bug.
  if(NOT (status STREQUAL "0" OR status STREQUAL "1"))
    message(FATAL_ERROR "tkc on ${input}: status '${status}'\n${stderr}")
  endif()
endforeach()
message(STATUS "${count} fuzz regression inputs end with a diagnostic or success")
