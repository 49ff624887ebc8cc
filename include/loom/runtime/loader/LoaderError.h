//===- loom/runtime/loader/LoaderError.h - Loader errors with a kind ------===//
//
// Every loader failure is an llvm::Error carrying a kind, so the C binding
// can answer the documented HSA status without parsing messages, and a
// message that says what failed and where.
//
//===----------------------------------------------------------------------===//
#ifndef LOOM_RUNTIME_LOADER_LOADERERROR_H
#define LOOM_RUNTIME_LOADER_LOADERERROR_H

#include "llvm/ADT/Twine.h"
#include "llvm/Support/Error.h"

#include <string>
#include <utility>

namespace loom::loader {

/// What went wrong. Each kind maps to one HSA status in hsa/LoaderApi.cpp.
enum class LoaderErrc {
  InvalidArgument,         ///< HSA_STATUS_ERROR_INVALID_ARGUMENT
  InvalidCodeObject,       ///< HSA_STATUS_ERROR_INVALID_CODE_OBJECT
  InvalidCodeObjectReader, ///< HSA_STATUS_ERROR_INVALID_CODE_OBJECT_READER
  InvalidFile,             ///< HSA_STATUS_ERROR_INVALID_FILE
  IncompatibleIsa,         ///< HSA_STATUS_ERROR_INCOMPATIBLE_ARGUMENTS
  InvalidAgent,            ///< HSA_STATUS_ERROR_INVALID_AGENT
  InvalidExecutable,       ///< HSA_STATUS_ERROR_INVALID_EXECUTABLE
  FrozenExecutable,        ///< HSA_STATUS_ERROR_FROZEN_EXECUTABLE
  VariableAlreadyDefined,  ///< HSA_STATUS_ERROR_VARIABLE_ALREADY_DEFINED
  VariableUndefined,       ///< HSA_STATUS_ERROR_VARIABLE_UNDEFINED
  InvalidSymbolName,       ///< HSA_STATUS_ERROR_INVALID_SYMBOL_NAME
  OutOfResources,          ///< HSA_STATUS_ERROR_OUT_OF_RESOURCES
  Failure,                 ///< HSA_STATUS_ERROR
};

llvm::StringRef loaderErrcName(LoaderErrc C);

class LoaderError : public llvm::ErrorInfo<LoaderError> {
public:
  static char ID;
  LoaderError(LoaderErrc Code, std::string Message)
      : Code(Code), Message(std::move(Message)) {}
  LoaderErrc code() const { return Code; }
  const std::string &text() const { return Message; }
  void log(llvm::raw_ostream &OS) const override;
  std::error_code convertToErrorCode() const override;

private:
  LoaderErrc Code;
  std::string Message;
};

llvm::Error loaderError(LoaderErrc Code, const llvm::Twine &Message);

/// Consumes \p E: its kind (Failure for errors that are not LoaderErrors)
/// and its message. \p E must be a failure.
std::pair<LoaderErrc, std::string> takeLoaderError(llvm::Error E);

} // namespace loom::loader

#endif // LOOM_RUNTIME_LOADER_LOADERERROR_H
