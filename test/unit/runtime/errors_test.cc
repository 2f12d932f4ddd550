// Error classes, specific codes and their texts.
#include <catch2/catch.hpp>
#include <string>

#include "runtime/core/errors.h"

using namespace mpr::runtime;

TEST_CASE("every class is its own class and has a named text", "[errors]") {
  for (int c = MPI_SUCCESS; c <= kLastClass; ++c) {
    INFO("class " << c);
    CHECK(error_class_of(c) == c);
    const char* name = error_class_name(c);
    REQUIRE(name != nullptr);
    std::string text = error_string(c);
    CHECK(text.rfind(std::string(name) + ": ", 0) == 0);
    CHECK(text.size() > std::string(name).size() + 2);
  }
  CHECK(error_string(MPI_ERR_RANK) == "MPI_ERR_RANK: invalid rank");
  CHECK(error_string(MPI_SUCCESS) == "MPI_SUCCESS: no error");
  CHECK(std::string(error_class_name(MPI_ERR_UNSUPPORTED_OPERATION)) ==
        "MPI_ERR_UNSUPPORTED_OPERATION");
  CHECK(std::string(error_class_name(MPI_ERR_TRUNCATE)) == "MPI_ERR_TRUNCATE");
}

TEST_CASE("the class constants are dense and below MPI_ERR_LASTCODE", "[errors]") {
  CHECK(kLastClass == MPI_T_ERR_NOT_ACCESSIBLE);  // the MPI_T classes come last
  CHECK(MPI_ERR_LASTCODE > kLastClass);
  CHECK(error_class_name(kLastClass + 1) == nullptr);
  CHECK(error_class_name(-1) == nullptr);
}

TEST_CASE("specific codes carry their class and their message", "[errors]") {
  int code = make_error(MPI_ERR_RANK, "MPI_Send", "invalid rank %d (communicator size %d)", 7, 4);
  CHECK(code != MPI_ERR_RANK);
  CHECK(code > 0);
  CHECK(code <= MPI_ERR_LASTCODE);
  CHECK(error_class_of(code) == MPI_ERR_RANK);
  CHECK(error_string(code) == "MPI_Send: invalid rank 7 (communicator size 4)");

  int other = make_error(MPI_ERR_TRUNCATE, nullptr, "no prefix %s", "here");
  CHECK(other != code);
  CHECK(error_class_of(other) == MPI_ERR_TRUNCATE);
  CHECK(error_string(other) == "no prefix here");
  // The first message is still there.
  CHECK(error_string(code) == "MPI_Send: invalid rank 7 (communicator size 4)");
}

TEST_CASE("old specific codes fall back to the class text but keep their class", "[errors]") {
  int old = make_error(MPI_ERR_TAG, "MPI_Recv", "invalid tag -5");
  for (int i = 0; i < 200; ++i) make_error(MPI_ERR_COUNT, "MPI_Send", "filler %d", i);
  CHECK(error_class_of(old) == MPI_ERR_TAG);
  CHECK(error_string(old) == "MPI_ERR_TAG: invalid tag");
}

TEST_CASE("codes that were never issued are rejected", "[errors]") {
  CHECK(error_string(-1).empty());
  CHECK(error_string(MPI_ERR_LASTCODE + 1).empty());
  CHECK(error_string((5 << kClassBits) | 127).empty());  // class bits beyond the last class
  CHECK(error_class_of(-3) == MPI_ERR_UNKNOWN);
}

TEST_CASE("long messages are cut to MPI_MAX_ERROR_STRING", "[errors]") {
  std::string longer(2 * MPI_MAX_ERROR_STRING, 'x');
  int code = make_error(MPI_ERR_ARG, "MPI_Foo", "%s", longer.c_str());
  std::string text = error_string(code);
  CHECK(text.size() == MPI_MAX_ERROR_STRING - 1);
  CHECK(text.rfind("MPI_Foo: xxx", 0) == 0);
}

TEST_CASE("predefined error handler handles", "[errors][handles]") {
  CHECK(to_errhandler(MPI_ERRORS_ARE_FATAL) == errhandler_fatal());
  CHECK(to_errhandler(MPI_ERRORS_RETURN) == errhandler_return());
  CHECK(to_errhandler(MPI_ERRORS_ABORT)->kind == Errhandler::Kind::kAbort);
  CHECK(to_errhandler(MPI_ERRHANDLER_NULL) == nullptr);
  CHECK(to_errhandler(reinterpret_cast<MPI_Errhandler>(0x144)) == nullptr);
}
