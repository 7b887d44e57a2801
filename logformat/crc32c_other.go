//go:build !amd64

package logformat

// crc32cShort is CRC32C of a short p (a mini-transaction).
func crc32cShort(p []byte) uint32 { return CRC32C(p) }
