# Builds the kernel and config folders of the test-only kk3tune (cmake -P, at build time):
# OUT/kernels and OUT/configs hold a copy of the source tree's kernels/ and configs/ plus the test
# families' kernels (tests/families/*/*.cuh) and configs (*.json). The test kk3tune finds them
# beside its executable (OUT/bin/kk3tune), as the installed one does. Copies, not links, so a
# build folder carried to another machine (the GPU machine) keeps them; file(COPY) skips the
# files whose copy is up to date.
# Usage: cmake -DSRC=<source dir> -DOUT=<folder> -P stage_tree.cmake
foreach(kind kernels configs)
  file(GLOB entries "${SRC}/${kind}/*")
  if(kind STREQUAL "kernels")
    file(GLOB extra "${SRC}/tests/families/*/*.cuh")
  else()
    file(GLOB extra "${SRC}/tests/families/*/*.json")
  endif()
  foreach(entry IN LISTS entries extra)
    get_filename_component(name "${entry}" NAME)
    if(IS_SYMLINK "${OUT}/${kind}/${name}")
      file(REMOVE "${OUT}/${kind}/${name}")  # a link an earlier version of this script made
    endif()
  endforeach()
  file(MAKE_DIRECTORY "${OUT}/${kind}")
  file(COPY ${entries} ${extra} DESTINATION "${OUT}/${kind}")
endforeach()
