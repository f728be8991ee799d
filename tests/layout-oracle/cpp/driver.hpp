// The runtime of the generated C++ query functions (cpp_source.py): printing CuTe
// values as `position<TAB>kind<TAB>text` lines, and running each query in a forked
// child so that a failed run-time check (an assert) answers that query only.
#pragma once

#include <cute/layout.hpp>
#include <cute/layout_composed.hpp>
#include <cute/swizzle.hpp>
#include <cute/swizzle_layout.hpp>

#include <cstdio>
#include <sstream>
#include <string>
#include <sys/wait.h>
#include <unistd.h>

using namespace cute;

template <class T>
std::string text_of(T const& value) {
  std::ostringstream out;
  out << value;
  return out.str();
}

template <class T>
void emit(int position, T const& value) {
  std::printf("%d\tresult\t%s\n", position, text_of(value).c_str());
}

template <class Pair>
void emit_slice(int position, Pair const& sliced) {
  std::printf("%d\tslice\t%s\t%s\n", position, text_of(get<0>(sliced)).c_str(),
              text_of(get<1>(sliced)).c_str());
}

template <class L>
void emit_table(int position, L const& layout) {
  std::string values;
  for (int64_t i = 0; i < int64_t(size(layout)); ++i) {
    values += (i ? "," : "") + text_of(layout(i));
  }
  std::printf("%d\tresult\t[%s]\n", position, values.c_str());
}

template <class S>
void emit_swizzle_table(int position, S const& swizzle, int64_t count) {
  std::string values;
  for (int64_t i = 0; i < count; ++i) {
    values += (i ? "," : "") + text_of(swizzle(i));
  }
  std::printf("%d\tresult\t[%s]\n", position, values.c_str());
}

inline void run(int position, void (*query)(int)) {
  std::fflush(stdout);
  pid_t child = fork();
  if (child == 0) {
    query(position);
    std::fflush(stdout);
    _exit(0);
  }
  int status = 0;
  waitpid(child, &status, 0);
  if (!WIFEXITED(status) || WEXITSTATUS(status) != 0) {
    std::printf("%d\terror\tfails at run time (status %d)\n", position, status);
  }
}
