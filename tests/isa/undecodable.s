// A device function with data in the middle and an odd tail: the
// disassembler must print them as llvm-objdump does and keep going.
  .text
  .globl undecodable
  .p2align 8
  .type undecodable,@function
undecodable:
  s_nop 0
  .long 0xdeadbeef
  .long 0xffffffff
  s_cbranch_scc0 .Lskip
  s_nop 1
.Lskip:
  s_setpc_b64 s[30:31]
  .byte 0x01, 0x02
.Lend:
  .size undecodable, .Lend-undecodable
