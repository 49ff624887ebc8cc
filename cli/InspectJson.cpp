//===- cli/InspectJson.cpp - `loom inspect --json` --------------------------===//
//
// The JSON schema is documented in docs/inspect-json.md; it is versioned by
// the "schema" key and only grows (new keys) within a version.
//
//===----------------------------------------------------------------------===//

#include "Inspect.h"

#include "llvm/Demangle/Demangle.h"

using namespace llvm;
using namespace loom::codeobj;

namespace loom::cli {
namespace {

json::Object symbolJson(const SymbolInfo &S) {
  json::Object O{{"name", S.Name},
                 {"address", S.Address},
                 {"size", S.Size},
                 {"section", S.Section},
                 {"binding", bindingName(S.Binding)},
                 {"visibility", visibilityName(S.Visibility)}};
  std::string Demangled = demangle(S.Name);
  if (Demangled != S.Name)
    O["demangled"] = Demangled;
  return O;
}

json::Object descriptorJson(const Kernel &K) {
  const KernelDescriptor &D = K.KD;
  const PgmRsrc1 &R1 = D.Rsrc1;
  const PgmRsrc2 &R2 = D.Rsrc2;
  const KernelCodeProperties &P = D.Properties;
  return json::Object{
      {"symbol", K.Descriptor.Name},
      {"address", K.Descriptor.Address},
      {"group_segment_fixed_size", D.GroupSegmentFixedSize},
      {"private_segment_fixed_size", D.PrivateSegmentFixedSize},
      {"kernarg_size", D.KernargSize},
      {"kernel_code_entry_byte_offset", D.KernelCodeEntryByteOffset},
      {"entry_address", K.EntryAddress},
      {"compute_pgm_rsrc1",
       json::Object{
           {"raw", D.ComputePgmRsrc1},
           {"granulated_workitem_vgpr_count", R1.GranulatedWorkitemVgprCount},
           {"granulated_wavefront_sgpr_count",
            R1.GranulatedWavefrontSgprCount},
           {"priority", R1.Priority},
           {"float_round_mode_32", R1.FloatRoundMode32},
           {"float_round_mode_16_64", R1.FloatRoundMode16_64},
           {"float_denorm_mode_32", R1.FloatDenormMode32},
           {"float_denorm_mode_16_64", R1.FloatDenormMode16_64},
           {"priv", R1.Priv},
           {"enable_dx10_clamp", R1.EnableDx10Clamp},
           {"debug_mode", R1.DebugMode},
           {"enable_ieee_mode", R1.EnableIeeeMode},
           {"bulky", R1.Bulky},
           {"cdbg_user", R1.CdbgUser},
           {"fp16_ovfl", R1.Fp16Ovfl}}},
      {"compute_pgm_rsrc2",
       json::Object{
           {"raw", D.ComputePgmRsrc2},
           {"enable_private_segment", R2.EnablePrivateSegment},
           {"user_sgpr_count", R2.UserSgprCount},
           {"enable_trap_handler", R2.EnableTrapHandler},
           {"enable_sgpr_workgroup_id_x", R2.EnableSgprWorkgroupIdX},
           {"enable_sgpr_workgroup_id_y", R2.EnableSgprWorkgroupIdY},
           {"enable_sgpr_workgroup_id_z", R2.EnableSgprWorkgroupIdZ},
           {"enable_sgpr_workgroup_info", R2.EnableSgprWorkgroupInfo},
           {"enable_vgpr_workitem_id", R2.EnableVgprWorkitemId},
           {"enable_exception_address_watch", R2.EnableExceptionAddressWatch},
           {"enable_exception_memory", R2.EnableExceptionMemory},
           {"granulated_lds_size", R2.GranulatedLdsSize},
           {"exception_mask", R2.ExceptionMask}}},
      {"compute_pgm_rsrc3",
       json::Object{{"raw", D.ComputePgmRsrc3},
                    {"accum_offset", D.Rsrc3.AccumOffset},
                    {"accum_offset_vgprs", D.accumOffsetInVgprs()},
                    {"tg_split", D.Rsrc3.TgSplit}}},
      {"kernel_code_properties",
       json::Object{
           {"raw", D.KernelCodePropertiesRaw},
           {"enable_sgpr_private_segment_buffer",
            P.EnableSgprPrivateSegmentBuffer},
           {"enable_sgpr_dispatch_ptr", P.EnableSgprDispatchPtr},
           {"enable_sgpr_queue_ptr", P.EnableSgprQueuePtr},
           {"enable_sgpr_kernarg_segment_ptr", P.EnableSgprKernargSegmentPtr},
           {"enable_sgpr_dispatch_id", P.EnableSgprDispatchId},
           {"enable_sgpr_flat_scratch_init", P.EnableSgprFlatScratchInit},
           {"enable_sgpr_private_segment_size",
            P.EnableSgprPrivateSegmentSize},
           {"enable_wavefront_size32", P.EnableWavefrontSize32},
           {"uses_dynamic_stack", P.UsesDynamicStack},
           {"user_sgpr_count", D.enabledUserSgprCount()}}},
      {"kernarg_preload",
       json::Object{{"raw", D.KernargPreloadRaw},
                    {"length", D.KernargPreloadLength},
                    {"offset", D.KernargPreloadOffset}}},
  };
}

json::Value dim3Json(const std::optional<std::array<uint64_t, 3>> &D) {
  if (!D)
    return nullptr;
  return json::Array{(*D)[0], (*D)[1], (*D)[2]};
}

template <typename T> json::Value optJson(const std::optional<T> &V) {
  if (!V)
    return nullptr;
  return *V;
}

json::Object argJson(const KernelArgMetadata &A) {
  return json::Object{
      {"name", A.Name},
      {"type_name", A.TypeName},
      {"offset", A.Offset},
      {"size", A.Size},
      {"value_kind", A.ValueKind},
      {"address_space", A.AddressSpace},
      {"access", A.Access},
      {"actual_access", A.ActualAccess},
      {"pointee_align", optJson(A.PointeeAlign)},
      {"is_const", A.IsConst},
      {"is_restrict", A.IsRestrict},
      {"is_volatile", A.IsVolatile},
      {"is_pipe", A.IsPipe},
      {"hidden", A.isHidden()},
  };
}

json::Object kernelMetadataJson(const KernelMetadata &M) {
  json::Array Args;
  for (const KernelArgMetadata &A : M.Args)
    Args.push_back(argJson(A));
  return json::Object{
      {"name", M.Name},
      {"symbol", M.Symbol},
      {"language", M.LanguageName},
      {"language_version", json::Array(M.LanguageVersion)},
      {"args", std::move(Args)},
      {"kernarg_segment_size", M.KernargSegmentSize},
      {"kernarg_segment_align", M.KernargSegmentAlign},
      {"group_segment_fixed_size", M.GroupSegmentFixedSize},
      {"private_segment_fixed_size", M.PrivateSegmentFixedSize},
      {"wavefront_size", M.WavefrontSize},
      {"sgpr_count", M.SgprCount},
      {"vgpr_count", M.VgprCount},
      {"agpr_count", M.AgprCount},
      {"sgpr_spill_count", M.SgprSpillCount},
      {"vgpr_spill_count", M.VgprSpillCount},
      {"max_flat_workgroup_size", M.MaxFlatWorkgroupSize},
      {"uniform_work_group_size", optJson(M.UniformWorkgroupSize)},
      {"uses_dynamic_stack", optJson(M.UsesDynamicStack)},
      {"reqd_workgroup_size", dim3Json(M.ReqdWorkgroupSize)},
      {"workgroup_size_hint", dim3Json(M.WorkgroupSizeHint)},
      {"kind", optJson(M.Kind)},
  };
}

json::Object codeObjectJson(const EmbeddedCodeObject &E) {
  const CodeObject &CO = *E.Object;
  const TargetId &T = CO.target();
  const Metadata &MD = CO.metadata();

  json::Array Kernels;
  for (const Kernel &K : CO.kernels()) {
    json::Object O = symbolJson(K.Code);
    O["descriptor"] = descriptorJson(K);
    const KernelMetadata *M = CO.metadataOf(K);
    O["metadata"] = M ? json::Value(kernelMetadataJson(*M)) : nullptr;
    Kernels.push_back(std::move(O));
  }
  json::Array Functions, Variables, Relocs, Undefs;
  for (const Function &F : CO.functions())
    Functions.push_back(symbolJson(F.Sym));
  for (const Variable &V : CO.variables())
    Variables.push_back(symbolJson(V.Sym));
  for (const DynamicRelocation &R : CO.dynamicRelocations())
    Relocs.push_back(json::Object{{"offset", R.Offset},
                                  {"type", R.Type},
                                  {"type_name", R.TypeName},
                                  {"symbol", R.Symbol},
                                  {"addend", R.Addend}});
  for (const UndefinedSymbol &U : CO.undefinedSymbols())
    Undefs.push_back(json::Object{{"name", U.Name},
                                  {"binding", bindingName(U.Binding)},
                                  {"is_function", U.IsFunction}});
  json::Array Segments;
  for (const LoadSegment &S : CO.loadSegments())
    Segments.push_back(json::Object{{"vaddr", S.VAddr},
                                    {"mem_size", S.MemSize},
                                    {"file_offset", S.FileOffset},
                                    {"file_size", S.FileSize},
                                    {"flags", S.Flags}});

  return json::Object{
      {"entry_id", E.EntryId},
      {"file_offset", E.FileOffset},
      {"size", CO.bytes().size()},
      {"target",
       json::Object{{"id", T.str()},
                    {"processor", T.Processor},
                    {"xnack", featureSettingName(T.Xnack)},
                    {"sramecc", featureSettingName(T.Sramecc)},
                    {"generic_version", T.GenericVersion}}},
      {"abi_version", CO.abiVersion()},
      {"e_flags", CO.elfFlags()},
      {"loaded_size", CO.loadedSize()},
      {"load_segments", std::move(Segments)},
      {"metadata_version", json::Array(MD.Version)},
      {"metadata_target", MD.Target},
      {"kernels", std::move(Kernels)},
      {"functions", std::move(Functions)},
      {"variables", std::move(Variables)},
      {"dynamic_relocations", std::move(Relocs)},
      {"undefined_symbols", std::move(Undefs)},
      {"printf", json::Array(MD.Printf)},
  };
}

} // namespace

json::Value inspectJson(const Input &In) {
  json::Array Objects, Others;
  for (const EmbeddedCodeObject &E : In.CodeObjects)
    Objects.push_back(codeObjectJson(E));
  for (const OtherBundleEntry &O : In.OtherEntries)
    Others.push_back(json::Object{{"entry_id", O.EntryId},
                                  {"file_offset", O.FileOffset},
                                  {"size", O.Size}});
  return json::Object{{"schema", InspectJsonSchema},
                      {"file", In.Path},
                      {"kind", inputKindName(In.Kind)},
                      {"code_objects", std::move(Objects)},
                      {"other_bundle_entries", std::move(Others)}};
}

} // namespace loom::cli
