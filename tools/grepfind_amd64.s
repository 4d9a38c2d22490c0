#include "textflag.h"

// func pairScanAVX2(a, b []byte, ca, cb, fa, fb byte) (off int, mask uint32)
//
// Tests a[k] | fa == ca && b[k] | fb == cb for k in rounds of 32, up to
// the shorter length rounded down to 32, and returns the offset of the
// first round with a hit and its hits, one bit for each k, or the length
// scanned and 0.
TEXT ·pairScanAVX2(SB), NOSPLIT, $0-68
	MOVQ a_base+0(FP), SI
	MOVQ a_len+8(FP), CX
	MOVQ b_base+24(FP), DI
	MOVQ b_len+32(FP), DX
	CMPQ DX, CX
	CMOVQLT DX, CX
	ANDQ $~31, CX
	VPBROADCASTB ca+48(FP), Y1
	VPBROADCASTB cb+49(FP), Y2
	VPBROADCASTB fa+50(FP), Y3
	VPBROADCASTB fb+51(FP), Y4
	XORQ AX, AX

loop:
	CMPQ AX, CX
	JGE  none
	VMOVDQU (SI)(AX*1), Y5
	VMOVDQU (DI)(AX*1), Y6
	VPOR     Y3, Y5, Y5
	VPOR     Y4, Y6, Y6
	VPCMPEQB Y1, Y5, Y5
	VPCMPEQB Y2, Y6, Y6
	VPAND    Y5, Y6, Y5
	VPMOVMSKB Y5, BX
	TESTL BX, BX
	JNZ   hit
	ADDQ  $32, AX
	JMP   loop

hit:
	VZEROUPPER
	MOVQ AX, off+56(FP)
	MOVL BX, mask+64(FP)
	RET

none:
	VZEROUPPER
	MOVQ AX, off+56(FP)
	MOVL $0, mask+64(FP)
	RET
