//===- codeobj/Metadata.cpp - Parse NT_AMDGPU_METADATA ---------------------===//
//
// LLVM's msgpack::Document does the decoding; this file maps the document
// onto plain structs and reports every missing or mistyped key with its path
// (e.g. "amdhsa.kernels[1].args[0].offset: expected an unsigned integer").
//
//===----------------------------------------------------------------------===//

#include "loom/codeobj/Metadata.h"

#include "llvm/ADT/SmallVector.h"
#include "llvm/BinaryFormat/MsgPackDocument.h"
#include "llvm/BinaryFormat/MsgPackReader.h"
#include "llvm/Support/FormatVariadic.h"

using namespace llvm;
using msgpack::DocNode;
using msgpack::Type;

namespace loom::codeobj {
namespace {

Error mdError(const Twine &Path, const Twine &Msg) {
  return createStringError(inconvertibleErrorCode(),
                           "metadata " + Path + ": " + Msg);
}

Error readUInt(DocNode N, const Twine &Path, uint64_t &Out) {
  if (N.getKind() == Type::UInt) {
    Out = N.getUInt();
    return Error::success();
  }
  if (N.getKind() == Type::Int && N.getInt() >= 0) {
    Out = static_cast<uint64_t>(N.getInt());
    return Error::success();
  }
  return mdError(Path, "expected an unsigned integer");
}

Error readString(DocNode N, const Twine &Path, std::string &Out) {
  if (!N.isString())
    return mdError(Path, "expected a string");
  Out = N.getString().str();
  return Error::success();
}

Error readBool(DocNode N, const Twine &Path, bool &Out) {
  if (N.getKind() != Type::Boolean)
    return mdError(Path, "expected a boolean");
  Out = N.getBool();
  return Error::success();
}

template <typename T>
Error readOptional(DocNode N, const Twine &Path, std::optional<T> &Out,
                   Error (*Read)(DocNode, const Twine &, T &)) {
  T V{};
  if (Error E = Read(N, Path, V))
    return E;
  Out = std::move(V);
  return Error::success();
}

Error readUIntArray(DocNode N, const Twine &Path, std::vector<uint64_t> &Out) {
  if (!N.isArray())
    return mdError(Path, "expected an array");
  Out.clear();
  for (DocNode &Elt : N.getArray()) {
    uint64_t V;
    if (Error E = readUInt(Elt, Path + "[" + Twine(Out.size()) + "]", V))
      return E;
    Out.push_back(V);
  }
  return Error::success();
}

Error readDim3(DocNode N, const Twine &Path,
               std::optional<std::array<uint64_t, 3>> &Out) {
  std::vector<uint64_t> V;
  if (Error E = readUIntArray(N, Path, V))
    return E;
  if (V.size() != 3)
    return mdError(Path, "expected 3 elements");
  Out = std::array<uint64_t, 3>{V[0], V[1], V[2]};
  return Error::success();
}

/// Walks the string-keyed entries of a map node, calling \p Visit(Key, Value)
/// for each; required keys missing afterwards are reported by the caller.
template <typename Fn>
Error forEachEntry(DocNode N, const Twine &Path, Fn Visit) {
  if (!N.isMap())
    return mdError(Path, "expected a map");
  for (auto &[Key, Value] : N.getMap()) {
    if (!Key.isString())
      return mdError(Path, "map key is not a string");
    if (Error E = Visit(Key.getString(), Value))
      return E;
  }
  return Error::success();
}

Error parseArg(DocNode N, const std::string &Path, KernelArgMetadata &A) {
  bool HasSize = false, HasOffset = false, HasKind = false;
  Error E = forEachEntry(N, Path, [&](StringRef Key, DocNode V) -> Error {
    std::string P = Path + "." + Key.drop_front().str();
    if (Key == ".name")
      return readString(V, P, A.Name);
    if (Key == ".type_name")
      return readString(V, P, A.TypeName);
    if (Key == ".size")
      return HasSize = true, readUInt(V, P, A.Size);
    if (Key == ".offset")
      return HasOffset = true, readUInt(V, P, A.Offset);
    if (Key == ".value_kind")
      return HasKind = true, readString(V, P, A.ValueKind);
    if (Key == ".address_space")
      return readString(V, P, A.AddressSpace);
    if (Key == ".access")
      return readString(V, P, A.Access);
    if (Key == ".actual_access")
      return readString(V, P, A.ActualAccess);
    if (Key == ".pointee_align")
      return readOptional<uint64_t>(V, P, A.PointeeAlign, readUInt);
    if (Key == ".is_const")
      return readBool(V, P, A.IsConst);
    if (Key == ".is_restrict")
      return readBool(V, P, A.IsRestrict);
    if (Key == ".is_volatile")
      return readBool(V, P, A.IsVolatile);
    if (Key == ".is_pipe")
      return readBool(V, P, A.IsPipe);
    return Error::success();
  });
  if (E)
    return E;
  if (!HasSize)
    return mdError(Path, "missing .size");
  if (!HasOffset)
    return mdError(Path, "missing .offset");
  if (!HasKind)
    return mdError(Path, "missing .value_kind");
  return Error::success();
}

Error parseKernel(DocNode N, const std::string &Path, KernelMetadata &K) {
  bool HasName = false, HasSymbol = false;
  Error E = forEachEntry(N, Path, [&](StringRef Key, DocNode V) -> Error {
    std::string P = Path + "." + Key.drop_front().str();
    if (Key == ".name")
      return HasName = true, readString(V, P, K.Name);
    if (Key == ".symbol")
      return HasSymbol = true, readString(V, P, K.Symbol);
    if (Key == ".language")
      return readString(V, P, K.LanguageName);
    if (Key == ".language_version")
      return readUIntArray(V, P, K.LanguageVersion);
    if (Key == ".args") {
      if (!V.isArray())
        return mdError(P, "expected an array");
      for (DocNode &Arg : V.getArray()) {
        KernelArgMetadata A;
        if (Error E =
                parseArg(Arg, P + "[" + std::to_string(K.Args.size()) + "]", A))
          return E;
        K.Args.push_back(std::move(A));
      }
      return Error::success();
    }
    if (Key == ".kernarg_segment_size")
      return readUInt(V, P, K.KernargSegmentSize);
    if (Key == ".kernarg_segment_align")
      return readUInt(V, P, K.KernargSegmentAlign);
    if (Key == ".group_segment_fixed_size")
      return readUInt(V, P, K.GroupSegmentFixedSize);
    if (Key == ".private_segment_fixed_size")
      return readUInt(V, P, K.PrivateSegmentFixedSize);
    if (Key == ".wavefront_size")
      return readUInt(V, P, K.WavefrontSize);
    if (Key == ".sgpr_count")
      return readUInt(V, P, K.SgprCount);
    if (Key == ".vgpr_count")
      return readUInt(V, P, K.VgprCount);
    if (Key == ".agpr_count")
      return readUInt(V, P, K.AgprCount);
    if (Key == ".sgpr_spill_count")
      return readUInt(V, P, K.SgprSpillCount);
    if (Key == ".vgpr_spill_count")
      return readUInt(V, P, K.VgprSpillCount);
    if (Key == ".max_flat_workgroup_size")
      return readUInt(V, P, K.MaxFlatWorkgroupSize);
    if (Key == ".uniform_work_group_size") {
      // Emitted as 0/1 by LLVM, a boolean by some producers.
      if (V.getKind() == Type::Boolean)
        return readOptional<bool>(V, P, K.UniformWorkgroupSize, readBool);
      uint64_t U;
      if (Error E = readUInt(V, P, U))
        return E;
      K.UniformWorkgroupSize = U != 0;
      return Error::success();
    }
    if (Key == ".uses_dynamic_stack")
      return readOptional<bool>(V, P, K.UsesDynamicStack, readBool);
    if (Key == ".reqd_workgroup_size")
      return readDim3(V, P, K.ReqdWorkgroupSize);
    if (Key == ".workgroup_size_hint")
      return readDim3(V, P, K.WorkgroupSizeHint);
    if (Key == ".kind")
      return readOptional<std::string>(V, P, K.Kind, readString);
    return Error::success();
  });
  if (E)
    return E;
  if (!HasName)
    return mdError(Path, "missing .name");
  if (!HasSymbol)
    return mdError(Path, "missing .symbol");
  return Error::success();
}

/// Walks the msgpack objects of \p Blob the way msgpack::Document reads them,
/// without building anything, and rejects what the Document cannot take:
/// it orders map keys with DocNode::operator<, which reaches llvm_unreachable
/// when two keys of one map are both arrays or both maps. Every key of the
/// metadata is a string, so any array or map key is an error here.
Error checkMsgpackShape(StringRef Blob) {
  struct Level {
    uint64_t Remaining; // entries (key-value pairs for maps) still to read
    bool IsMap;
    bool AtKey;
  };
  msgpack::Reader R(Blob);
  SmallVector<Level, 8> Stack;
  do {
    msgpack::Object Obj;
    Expected<bool> Read = R.read(Obj);
    if (!Read)
      return createStringError(inconvertibleErrorCode(),
                               "malformed msgpack in NT_AMDGPU_METADATA: " +
                                   toString(Read.takeError()));
    if (!*Read)
      return createStringError(inconvertibleErrorCode(),
                               "malformed msgpack in NT_AMDGPU_METADATA: "
                               "truncated");
    bool IsContainer = Obj.Kind == Type::Map || Obj.Kind == Type::Array;
    if (!Stack.empty()) {
      Level &L = Stack.back();
      if (L.IsMap && L.AtKey) {
        if (IsContainer)
          return createStringError(
              inconvertibleErrorCode(),
              "malformed msgpack in NT_AMDGPU_METADATA: a map key is an "
              "array or a map");
        L.AtKey = false;
      } else {
        L.AtKey = true;
        --L.Remaining;
      }
    }
    if (IsContainer)
      Stack.push_back({Obj.Length, Obj.Kind == Type::Map, true});
    while (!Stack.empty() && Stack.back().AtKey && Stack.back().Remaining == 0)
      Stack.pop_back();
  } while (!Stack.empty());
  return Error::success();
}

} // namespace

Expected<Metadata> Metadata::parse(StringRef Blob) {
  if (Error E = checkMsgpackShape(Blob))
    return std::move(E);
  msgpack::Document Doc;
  if (!Doc.readFromBlob(Blob, /*Multi=*/false))
    return createStringError(inconvertibleErrorCode(),
                             "malformed msgpack in NT_AMDGPU_METADATA");
  Metadata MD;
  bool HasVersion = false;
  Error E = forEachEntry(Doc.getRoot(), "root",
                         [&](StringRef Key, DocNode V) -> Error {
    if (Key == "amdhsa.version")
      return HasVersion = true, readUIntArray(V, Key, MD.Version);
    if (Key == "amdhsa.target")
      return readString(V, Key, MD.Target);
    if (Key == "amdhsa.printf") {
      if (!V.isArray())
        return mdError(Key, "expected an array");
      for (DocNode &S : V.getArray()) {
        std::string Str;
        if (Error E = readString(
                S, Key + "[" + Twine(MD.Printf.size()) + "]", Str))
          return E;
        MD.Printf.push_back(std::move(Str));
      }
      return Error::success();
    }
    if (Key == "amdhsa.kernels") {
      if (!V.isArray())
        return mdError(Key, "expected an array");
      for (DocNode &KN : V.getArray()) {
        KernelMetadata K;
        if (Error E = parseKernel(
                KN, formatv("amdhsa.kernels[{0}]", MD.Kernels.size()).str(),
                K))
          return E;
        MD.Kernels.push_back(std::move(K));
      }
      return Error::success();
    }
    return Error::success();
  });
  if (E)
    return std::move(E);
  if (!HasVersion)
    return mdError("root", "missing amdhsa.version");
  return MD;
}

const KernelMetadata *Metadata::findKernel(StringRef Name) const {
  for (const KernelMetadata &K : Kernels)
    if (K.Name == Name)
      return &K;
  return nullptr;
}

} // namespace loom::codeobj
