package schema

import (
	"bytes"
	"encoding/binary"
	"hash/crc32"
	"os"
	"path/filepath"
	"testing"

	"innoscope/discovery"
	"innoscope/internal/lab"
)

// sdiSeed is a real MySQL 8.0 tablespace (sakila.actor, from the peer fixtures) cut to its first
// 6 pages (page 3 is its SDI leaf), or nil when the fixtures are not there.
func sdiSeed(f *testing.F) []byte {
	b, err := os.ReadFile(filepath.Join(lab.PeerFixtures(), "innodb_ruby/sakila/8.0/sakila/actor.ibd"))
	if err != nil || len(b) < 6*16384 {
		return nil
	}
	return b[:6*16384]
}

// withCRC32 stores the crc32 checksum of page p in its header and trailer, so that a fuzzed
// page reaches the SDI parser instead of failing its checksum.
func withCRC32(p []byte) {
	c := crc32.MakeTable(crc32.Castagnoli)
	sum := crc32.Checksum(p[4:26], c) ^ crc32.Checksum(p[38:len(p)-8], c)
	binary.BigEndian.PutUint32(p[0:], sum)
	binary.BigEndian.PutUint32(p[len(p)-8:], sum)
}

// FuzzSDIPage: a damaged SDI page (its checksum made right, so the records are parsed) gives an
// error or records whose JSON decompressed to the length their record gives; never a panic.
func FuzzSDIPage(f *testing.F) {
	img := sdiSeed(f)
	if img == nil {
		f.Skip("peer fixtures missing")
	}
	f.Add(bytes.Clone(img[3*16384 : 4*16384]))
	f.Add(make([]byte, 64))
	f.Fuzz(func(t *testing.T, page []byte) {
		b := bytes.Clone(img)
		p := b[3*16384 : 4*16384]
		copy(p[38:len(p)-8], page)
		withCRC32(p)
		tf, err := discovery.NewFile(bytes.NewReader(b), int64(len(b)), "fuzz.ibd")
		if err != nil {
			return
		}
		recs, err := readSDI(tf, "fuzz.ibd")
		if err != nil {
			return
		}
		for _, r := range recs {
			if r.Type == 1 {
				if o, err := ParseSDITable(r.JSON); err == nil {
					if tb, err := TableFromDD(&o.Table, "fuzz.ibd"); err == nil {
						_ = CreateTable(&o.Table)
						_ = tb
					}
				}
			}
		}
	})
}

// FuzzSDITable: any JSON gives an error or a table, and a CREATE TABLE; never a panic.
func FuzzSDITable(f *testing.F) {
	f.Add([]byte(`{"dd_object_type":"Table","dd_object":{"name":"t","schema_ref":"d","engine":"InnoDB","columns":[{"name":"a","type":4,"hidden":1}],"indexes":[{"name":"PRIMARY","type":1,"se_private_data":"id=1;root=4;","elements":[{"column_opx":0,"length":4}]}]}}`))
	f.Add([]byte(`{"dd_object_type":"Table","dd_object":{"name":"t","columns":[{"name":"a","type":99}]}}`))
	f.Fuzz(func(t *testing.T, js []byte) {
		o, err := ParseSDITable(js)
		if err != nil {
			return
		}
		_ = CreateTable(&o.Table)
		TableFromDD(&o.Table, "fuzz.ibd")
	})
}
