package schema

// MySQL type codes (enum_field_types), as a .frm file stores them and as the low byte of an
// InnoDB precise type holds them.
const (
	MyDecimalOld = 0
	MyTiny       = 1
	MyShort      = 2
	MyLong       = 3
	MyFloat      = 4
	MyDouble     = 5
	MyTimestamp  = 7
	MyLongLong   = 8
	MyInt24      = 9
	MyDate       = 10
	MyTime       = 11
	MyDatetime   = 12
	MyYear       = 13
	MyNewDate    = 14
	MyVarchar    = 15
	MyBit        = 16
	MyTimestamp2 = 17
	MyDatetime2  = 18
	MyTime2      = 19
	MyNewDecimal = 246
	MyEnum       = 247
	MySet        = 248
	MyTinyBlob   = 249
	MyMediumBlob = 250
	MyLongBlob   = 251
	MyBlob       = 252
	MyVarString  = 253
	MyString     = 254
	MyGeometry   = 255
)
