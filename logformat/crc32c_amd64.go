package logformat

import "golang.org/x/sys/cpu"

// crc32cSSE42 is CRC32C of p on a CPU with SSE4.2 (crc32c_amd64.s).
//
//go:noescape
func crc32cSSE42(p []byte) uint32

// haveSSE42 says whether crc32cSSE42 may be used.
var haveSSE42 = cpu.X86.HasSSE42

// crc32cShort is CRC32C of a short p (a mini-transaction), with less overhead per call than
// hash/crc32 has; longer buffers go to hash/crc32, which interleaves three streams.
func crc32cShort(p []byte) uint32 {
	if haveSSE42 && len(p) < 1024 {
		return crc32cSSE42(p)
	}
	return CRC32C(p)
}
