//go:build !amd64

package logformat

// crc32cShort is CRC32C of a short p (a mini-transaction).
func crc32cShort(p []byte) uint32 { return CRC32C(p) }

// haveSSE42 is false: crc32cSSE42 is only on amd64.
const haveSSE42 = false

// crc32cSSE42 is not called where haveSSE42 is false.
func crc32cSSE42(p []byte) uint32 { return CRC32C(p) }
