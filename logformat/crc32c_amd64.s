#include "textflag.h"

// func crc32cSSE42(p []byte) uint32
// CRC-32C of p with the SSE4.2 CRC32 instruction, eight bytes at a time: the whole of
// hash/crc32's Castagnoli checksum of a short buffer, without its layers of calls.
TEXT ·crc32cSSE42(SB), NOSPLIT, $0-28
	MOVQ p_base+0(FP), SI
	MOVQ p_len+8(FP), CX
	MOVL $0xffffffff, AX

loop32: // four at a time while 32 bytes remain (one dependency chain: fewer instructions)
	CMPQ CX, $32
	JB   loop8
	CRC32Q (SI), AX
	CRC32Q 8(SI), AX
	CRC32Q 16(SI), AX
	CRC32Q 24(SI), AX
	ADDQ $32, SI
	SUBQ $32, CX
	JMP  loop32

loop8:
	CMPQ CX, $8
	JB   loop1
	CRC32Q (SI), AX
	ADDQ $8, SI
	SUBQ $8, CX
	JMP  loop8

loop1: // the last 0 to 7 bytes: 4, 2 and 1 at a time
	TESTQ $4, CX
	JZ    two
	CRC32L (SI), AX
	ADDQ $4, SI

two:
	TESTQ $2, CX
	JZ    one
	CRC32W (SI), AX
	ADDQ $2, SI

one:
	TESTQ $1, CX
	JZ    done
	CRC32B (SI), AX

done:
	NOTL AX
	MOVL AX, ret+24(FP)
	RET
