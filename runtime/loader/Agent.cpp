//===- runtime/loader/Agent.cpp - Agents and ISA compatibility -------------===//

#include "loom/runtime/loader/Agent.h"

#include "loom/emu/Device.h"
#include "loom/runtime/loader/LoaderError.h"

#include "llvm/ADT/SmallVector.h"

using namespace llvm;

namespace loom::loader {

using codeobj::FeatureSetting;
using codeobj::TargetId;

Expected<TargetId> parseTargetId(StringRef Text) {
  StringRef Id = Text.trim();
  // "amdgcn-amd-amdhsa--gfx90a:xnack-": the processor follows the last "--".
  if (size_t Dash = Id.rfind("--"); Dash != StringRef::npos)
    Id = Id.drop_front(Dash + 2);
  SmallVector<StringRef, 4> Parts;
  Id.split(Parts, ':');
  TargetId T;
  T.Processor = Parts[0].str();
  if (T.Processor.empty() || !Parts[0].starts_with("gfx"))
    return loaderError(LoaderErrc::InvalidArgument,
                       "'" + Text + "' is not an AMDGPU target id");
  // Both features exist on every processor Loom emulates.
  T.Xnack = FeatureSetting::Any;
  T.Sramecc = FeatureSetting::Any;
  for (StringRef F : ArrayRef(Parts).drop_front()) {
    if (F.size() < 2 || (F.back() != '+' && F.back() != '-'))
      return loaderError(LoaderErrc::InvalidArgument,
                         "bad feature '" + F + "' in target id '" + Text + "'");
    FeatureSetting S = F.back() == '+' ? FeatureSetting::On : FeatureSetting::Off;
    StringRef Name = F.drop_back();
    if (Name == "xnack")
      T.Xnack = S;
    else if (Name == "sramecc")
      T.Sramecc = S;
    else
      return loaderError(LoaderErrc::InvalidArgument,
                         "unknown feature '" + Name + "' in target id '" +
                             Text + "'");
  }
  return T;
}

LoaderAgent LoaderAgent::forDevice(emu::Device &Dev, uint64_t Handle) {
  LoaderAgent A;
  A.Handle = Handle;
  A.Device = &Dev;
  Expected<TargetId> T = parseTargetId(Dev.options().Target);
  if (T) {
    A.Isa = *T;
  } else {
    consumeError(T.takeError());
    A.Isa.Processor = Dev.processor().str();
  }
  // A device runs in one mode: settle what the options leave open.
  if (A.Isa.Xnack == FeatureSetting::Any ||
      A.Isa.Xnack == FeatureSetting::Unsupported)
    A.Isa.Xnack = FeatureSetting::Off;
  if (A.Isa.Sramecc == FeatureSetting::Any ||
      A.Isa.Sramecc == FeatureSetting::Unsupported)
    A.Isa.Sramecc = FeatureSetting::On;
  return A;
}

static bool featureFits(FeatureSetting Code, FeatureSetting Agent) {
  if (Code == FeatureSetting::Any || Code == FeatureSetting::Unsupported)
    return true;
  if (Agent == FeatureSetting::Any)
    return true;
  return Code == Agent;
}

int isaMatchScore(const TargetId &Code, const TargetId &Agent) {
  if (Code.Processor != Agent.Processor || Code.GenericVersion != 0)
    return -1;
  if (!featureFits(Code.Xnack, Agent.Xnack) ||
      !featureFits(Code.Sramecc, Agent.Sramecc))
    return -1;
  auto Exact = [](FeatureSetting S) {
    return S == FeatureSetting::On || S == FeatureSetting::Off;
  };
  return int(Exact(Code.Xnack)) + int(Exact(Code.Sramecc));
}

Error checkIsaCompatible(const TargetId &Code, const TargetId &Agent) {
  if (isaMatchScore(Code, Agent) >= 0)
    return Error::success();
  std::string Why;
  if (Code.Processor != Agent.Processor)
    Why = "the processor differs";
  else if (Code.GenericVersion != 0)
    Why = "generic code objects are not supported";
  else if (!featureFits(Code.Xnack, Agent.Xnack))
    Why = "the agent runs with xnack " +
          featureSettingName(Agent.Xnack).str();
  else
    Why = "the agent runs with sramecc " +
          featureSettingName(Agent.Sramecc).str();
  return loaderError(LoaderErrc::IncompatibleIsa,
                     "code object for " + Code.str() +
                         " cannot run on an agent of ISA " + Agent.str() +
                         ": " + Why);
}

} // namespace loom::loader
