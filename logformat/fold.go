package logformat

// foldPair and FoldBinary are the legacy innodb hash (ut0rnd.h, ut_fold_ulint_pair and
// ut_fold_binary), computed in 64-bit arithmetic as on the 64-bit servers that wrote such
// files; the low 32 bits are what pages and pre-5.7.9 log checkpoints store.
func foldPair(n1, n2 uint64) uint64 {
	return ((((n1 ^ n2 ^ 1653893711) << 8) + n1) ^ 1463735687) + n2
}

// FoldBinary is ut_fold_binary of p.
func FoldBinary(p []byte) uint64 {
	var f uint64
	for _, c := range p {
		f = foldPair(f, uint64(c))
	}
	return f
}

// BlockChecksumInnoDB is the pre-5.7.9 log block checksum (log0log.ic,
// log_block_calc_checksum_innodb; MariaDB's log_block_calc_checksum_format_0) of the bytes
// before the trailer.
func BlockChecksumInnoDB(b []byte) uint32 {
	sum, sh := uint32(1), uint(0)
	for _, c := range b[:BlockSize-4] {
		sum &= 0x7fffffff
		sum += uint32(c)
		sum += uint32(c) << sh
		sh++
		if sh > 24 {
			sh = 0
		}
	}
	return sum
}
