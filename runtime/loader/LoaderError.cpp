//===- runtime/loader/LoaderError.cpp - Loader errors with a kind ---------===//

#include "loom/runtime/loader/LoaderError.h"

#include "llvm/Support/raw_ostream.h"

using namespace llvm;

namespace loom::loader {

char LoaderError::ID = 0;

StringRef loaderErrcName(LoaderErrc C) {
  switch (C) {
  case LoaderErrc::InvalidArgument:
    return "invalid argument";
  case LoaderErrc::InvalidCodeObject:
    return "invalid code object";
  case LoaderErrc::InvalidCodeObjectReader:
    return "invalid code object reader";
  case LoaderErrc::InvalidFile:
    return "invalid file";
  case LoaderErrc::IncompatibleIsa:
    return "incompatible ISA";
  case LoaderErrc::InvalidAgent:
    return "invalid agent";
  case LoaderErrc::InvalidExecutable:
    return "invalid executable";
  case LoaderErrc::FrozenExecutable:
    return "frozen executable";
  case LoaderErrc::VariableAlreadyDefined:
    return "symbol already defined";
  case LoaderErrc::VariableUndefined:
    return "undefined symbol";
  case LoaderErrc::InvalidSymbolName:
    return "invalid symbol name";
  case LoaderErrc::OutOfResources:
    return "out of resources";
  case LoaderErrc::Failure:
    return "failure";
  }
  return "failure";
}

void LoaderError::log(raw_ostream &OS) const { OS << Message; }

std::error_code LoaderError::convertToErrorCode() const {
  return inconvertibleErrorCode();
}

Error loaderError(LoaderErrc Code, const Twine &Message) {
  return make_error<LoaderError>(Code, Message.str());
}

std::pair<LoaderErrc, std::string> takeLoaderError(Error E) {
  LoaderErrc Code = LoaderErrc::Failure;
  std::string Message;
  handleAllErrors(
      std::move(E),
      [&](const LoaderError &L) {
        Code = L.code();
        Message = L.text();
      },
      [&](const ErrorInfoBase &B) { Message = B.message(); });
  return {Code, Message};
}

} // namespace loom::loader
